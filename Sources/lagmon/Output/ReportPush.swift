import LagmonCore
import LagmonLinux
import LagmonMetrics

/// `lagmon check --push-gateway`: a saved report's metrics, pushed once under the run's own host
/// (`--label instance=…`, else the report's `run.host`, else this machine's name); a failed push
/// is a warning.
struct ReportPush {
    let gateway: PushGateway
    /// The URL as given, for the warning.
    let url: String
    let labels: [MetricLabel]

    func push(_ report: Report) {
        let metrics = LiveMetrics(thresholdNs: report.config.thresholdNs, labels: labels)
        metrics.record(report: report)
        let path = gateway.groupPath(labels: labels, defaultInstance: report.run?.host ?? PushClient.hostName())
        if let failure = PushClient.put(metrics.exposition(), to: gateway, path: path) {
            StandardError.say(
                "warning: could not push metrics to \(QuotedText.printable(url, limit: 200)): \(failure); the verdict and exit status are unaffected"
            )
        }
    }
}
