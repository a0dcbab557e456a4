import ArgumentParser
import LagmonCore

/// `--push-gateway` and `--label` of `lagmon check`: push a saved report's metrics.
struct PushOptions: ParsableArguments, PushArguments {
    @Option(
        name: .customLong("push-gateway"),
        help: ArgumentHelp(
            "Push the report's metrics to this Prometheus Pushgateway (http://HOST[:PORT]), grouped by job=lagmon, instance=<the report's host> and the --labels.",
            valueName: "url"))
    var pushGateway: String?

    @Option(
        name: .customLong("label"),
        help: ArgumentHelp(
            "Label the pushed metrics KEY=VALUE, in the grouping key (e.g. commit=$GITHUB_SHA, service=checkout; instance=ci replaces the host); repeatable.",
            valueName: "key=value"))
    var labels: [String] = []

    static var hasEndpoint: Bool { false }
    var servesMetrics: Bool { false }

    func validate() throws { try validatePush() }
}
