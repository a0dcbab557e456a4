import ArgumentParser
import LagmonCore

/// The Pushgateway options `run`, `attach` (MetricsOptions) and `check` (PushOptions) share:
/// `--push-gateway URL` and repeatable `--label KEY=VALUE`. Each command declares them with its
/// own help (when the push happens, which instance it names); the checks and parsing live here.
protocol PushArguments {
    var pushGateway: String? { get }
    var labels: [String] { get }
    /// Whether the command serves a scrape endpoint (`--metrics-listen`), which `--label`s label
    /// as well: whether it has the option, and whether it was given.
    static var hasEndpoint: Bool { get }
    var servesMetrics: Bool { get }
}

extension PushArguments {
    /// The gateway URL parses, every label is KEY=VALUE with a valid key, no key is given twice,
    /// labels come with a gateway or an endpoint, and `instance` (the pushed group's) with a gateway.
    func validatePush() throws {
        if let pushGateway, case .failure(let error) = PushGateway.parse(pushGateway) {
            throw ValidationError(error.description)
        }
        for label in labels {
            if case .failure(let error) = MetricLabel.parse(label) { throw ValidationError(error.description) }
        }
        guard labels.isEmpty || pushGateway != nil || servesMetrics else {
            throw ValidationError(
                Self.hasEndpoint
                    ? "--label labels the metrics lagmon serves or pushes; give --metrics-listen ADDRESS or --push-gateway URL too"
                    : "--label labels the pushed metrics; give --push-gateway URL too")
        }
        let keys = labels.compactMap { try? MetricLabel.parse($0).get().key }
        guard Set(keys).count == keys.count else { throw ValidationError("--label gives the same KEY twice") }
        guard !keys.contains(MetricLabel.instanceKey) || pushGateway != nil else {
            throw ValidationError(
                "--label instance= names the pushed group; give --push-gateway URL too (a scraped target's instance is set by Prometheus)"
            )
        }
    }

    /// The parsed gateway (validated).
    var gateway: PushGateway? { pushGateway.flatMap { try? PushGateway.parse($0).get() } }

    /// The parsed labels, in the order given (validated).
    var groupLabels: [MetricLabel] { labels.compactMap { try? MetricLabel.parse($0).get() } }
}
