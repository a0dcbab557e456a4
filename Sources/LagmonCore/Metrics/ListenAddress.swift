/// Where `--metrics-listen` serves: `HOST:PORT`, `[IPV6]:PORT`, or a bare `PORT` (loopback).
public struct ListenAddress: Sendable, Equatable {
    /// A host name or address literal (without brackets).
    public var host: String
    /// The TCP port; 0 lets the kernel choose one.
    public var port: UInt16

    /// The loopback address a bare port binds.
    public static let loopback = "127.0.0.1"

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Parses `text`; the error says what is wrong and how to write it.
    public static func parse(_ text: String) -> Result<ListenAddress, SyntaxError> {
        var host: Substring = ""
        var portText = text[...]
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[close...].hasPrefix("]:") else {
                return .failure(SyntaxError(text))
            }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else if let colon = text.lastIndex(of: ":") {
            guard !text[..<colon].contains(":") else { return .failure(SyntaxError(text)) }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard let port = UInt16(portText), !portText.hasPrefix("+") else { return .failure(SyntaxError(text)) }
        return .success(ListenAddress(host: host.isEmpty ? loopback : String(host), port: port))
    }

    /// `host:port`, bracketing an IPv6 literal.
    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// An address that is not `HOST:PORT`.
    public struct SyntaxError: Error, Equatable, CustomStringConvertible {
        public var text: String
        init(_ text: String) { self.text = text }
        public var description: String {
            "invalid --metrics-listen '\(QuotedText.printable(text, limit: 100))': give HOST:PORT (e.g. 127.0.0.1:9464, [::1]:9464, 0.0.0.0:9464) or a port (loopback)"
        }
    }
}
