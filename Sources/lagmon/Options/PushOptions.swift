import ArgumentParser
import LagmonCore

/// `--push-gateway` and `--label` of `lagmon check`: push a saved report's metrics.
struct PushOptions: ParsableArguments, PushArguments {
    @Option(
        name: .customLong("push-gateway"),
        help: ArgumentHelp(
            "Push the report's metrics to this Prometheus Pushgateway (http://HOST[:PORT]), grouped by job=lagmon and instance=<the report's host>.",
            valueName: "url"))
    var pushGateway: String?

    @Option(
        name: .customLong("label"),
        help: ArgumentHelp(
            "Add KEY=VALUE to the Pushgateway grouping key (e.g. commit=$GITHUB_SHA); repeatable.",
            valueName: "key=value"))
    var labels: [String] = []

    func validate() throws { try validatePush() }
}
