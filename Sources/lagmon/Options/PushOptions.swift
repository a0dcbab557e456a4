import ArgumentParser
import LagmonCore

/// `--push-gateway` and `--label` of `lagmon check`: push a saved report's metrics.
struct PushOptions: ParsableArguments {
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

    func validate() throws {
        if let pushGateway, case .failure(let error) = PushGateway.parse(pushGateway) {
            throw ValidationError(error.description)
        }
        for label in labels {
            if case .failure(let error) = MetricLabel.parse(label) { throw ValidationError(error.description) }
        }
        guard labels.isEmpty || pushGateway != nil else {
            throw ValidationError("--label sets the Pushgateway grouping key; give --push-gateway URL too")
        }
        let keys = labels.compactMap { try? MetricLabel.parse($0).get().key }
        guard Set(keys).count == keys.count else { throw ValidationError("--label gives the same KEY twice") }
    }

    /// The parsed gateway (validated).
    var gateway: PushGateway? { pushGateway.flatMap { try? PushGateway.parse($0).get() } }

    /// The parsed labels, in the order given (validated).
    var groupLabels: [MetricLabel] { labels.compactMap { try? MetricLabel.parse($0).get() } }
}
