/// A Prometheus Pushgateway (`--push-gateway http://HOST[:PORT][/PATH]`) and the grouping key
/// lagmon pushes under: `job=lagmon`, `instance` (`--label instance=…`, else the host), then
/// each other `--label KEY=VALUE`.
public struct PushGateway: Sendable, Equatable {
    /// Host name or address literal (without brackets).
    public var host: String
    /// TCP port (9091 when the URL gives none).
    public var port: UInt16
    /// The URL's path before `/metrics/…`, without a trailing slash (a gateway behind a prefix).
    public var pathPrefix: String

    public init(host: String, port: UInt16, pathPrefix: String = "") {
        self.host = host
        self.port = port
        self.pathPrefix = pathPrefix
    }

    /// Parses an `http://` URL; the error says what is wrong and how to write it.
    public static func parse(_ url: String) -> Result<PushGateway, PushGatewayError> {
        guard url.hasPrefix("http://") else {
            return .failure(.badURL(url, "only http:// URLs are supported (run a TLS proxy in front for https)"))
        }
        let rest = url.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" }
        var path = String(rest.dropFirst(authority.count))
        while path.hasSuffix("/") { path.removeLast() }
        guard !authority.contains("@"), !path.contains("?"), !path.contains("#") else {
            return .failure(.badURL(url, "give http://HOST[:PORT][/PATH], without credentials, query or fragment"))
        }
        let bare = authority.hasSuffix("]") || !authority.contains(":")
        let withPort = String(authority) + (bare ? ":9091" : "")
        guard !authority.isEmpty, !authority.hasPrefix(":"), case .success(let address) = ListenAddress.parse(withPort)
        else { return .failure(.badURL(url, "give http://HOST[:PORT], e.g. http://127.0.0.1:9091")) }
        return .success(PushGateway(host: address.host, port: address.port, pathPrefix: path))
    }

    /// The request path of the group `job=lagmon`, `instance`, then `labels` in order. Every
    /// value is base64url-encoded (`KEY@base64/VALUE`), so any text, `/` included, is safe.
    public func groupPath(instance: String, labels: [MetricLabel]) -> String {
        let pairs = [MetricLabel(key: "job", value: "lagmon"), MetricLabel(key: "instance", value: instance)] + labels
        return pathPrefix + "/metrics"
            + pairs.map { "/\($0.key)@base64/\(Base64URL.encode(Array($0.value.utf8)))" }.joined()
    }

    /// The request path of the group of `labels` (`--label`, in order): `instance` from its
    /// label when there is one, else `defaultInstance` (the host name); the other labels after it.
    public func groupPath(labels: [MetricLabel], defaultInstance: String) -> String {
        let instance = labels.last { $0.key == MetricLabel.instanceKey }?.value ?? defaultInstance
        return groupPath(instance: instance, labels: labels.filter { $0.key != MetricLabel.instanceKey })
    }

    /// `host:port` for messages, bracketing an IPv6 literal.
    public var authority: String { ListenAddress(host: host, port: port).description }
}
