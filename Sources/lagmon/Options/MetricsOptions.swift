import ArgumentParser
import LagmonCore

/// `--metrics-listen`, `--push-gateway` and `--label`: Prometheus metrics of the session.
struct MetricsOptions: ParsableArguments, PushArguments {
    @Option(
        name: .customLong("metrics-listen"),
        help: ArgumentHelp(
            "Serve Prometheus metrics at http://HOST:PORT/metrics while watching (a bare PORT binds 127.0.0.1).",
            valueName: "host:port"))
    var listen: String?

    @Option(
        name: .customLong("push-gateway"),
        help: ArgumentHelp(
            "At exit, push the final metrics to this Prometheus Pushgateway (http://HOST[:PORT]), grouped by job=lagmon, instance=<host name> and the --labels.",
            valueName: "url"))
    var pushGateway: String?

    @Option(
        name: .customLong("label"),
        help: ArgumentHelp(
            "Label every metric KEY=VALUE, served and pushed (e.g. service=checkout, commit=$GITHUB_SHA; pushed: in the grouping key, and instance=ci replaces the host name); repeatable.",
            valueName: "key=value"))
    var labels: [String] = []

    func validate() throws {
        if let listen, case .failure(let error) = ListenAddress.parse(listen) {
            throw ValidationError(error.description)
        }
        try validatePush()
    }

    static var hasEndpoint: Bool { true }
    var servesMetrics: Bool { listen != nil }

    /// Whether any metrics were asked for.
    var requested: Bool { listen != nil || pushGateway != nil }

    /// The parsed listen address (validated).
    var listenAddress: ListenAddress? { listen.flatMap { try? ListenAddress.parse($0).get() } }
}
