import LagmonCore
import LagmonLinux
import LagmonMetrics

/// The metrics of one `run` or `attach`: the endpoint bound before anything starts, kept
/// current while the session runs, and pushed at the end.
final class SessionMetrics: Sendable {
    /// How often the totals are brought up to date between scrapes.
    static let refreshIntervalNs: UInt64 = 1_000_000_000

    let metrics: LiveMetrics
    /// Where and under which grouping key to push at the end, if asked.
    private let gateway: PushGateway?
    private let gatewayURL: String
    private let labels: [MetricLabel]
    private let endpoint: MetricsEndpoint?
    private let refresher = PeriodicTask()

    /// Binds the endpoint, if asked for; nil when no metrics were asked for. A port in use or an
    /// address that is not local is a usage error, before the target starts.
    static func prepare(_ options: MetricsOptions, thresholdNs: UInt64) throws -> SessionMetrics? {
        guard options.requested else { return nil }
        do {
            return SessionMetrics(
                options: options, metrics: LiveMetrics(thresholdNs: thresholdNs, labels: options.groupLabels),
                endpoint: try options.listenAddress.map(MetricsEndpoint.init))
        } catch {
            throw ExitStatus.Failure(message: "\(error)", status: ExitStatus.usage)
        }
    }

    private init(options: MetricsOptions, metrics: LiveMetrics, endpoint: MetricsEndpoint?) {
        gateway = options.gateway
        gatewayURL = options.pushGateway ?? ""
        labels = options.groupLabels
        self.metrics = metrics
        self.endpoint = endpoint
    }

    /// Where stall ends go.
    var onStall: @Sendable (StallEvent) -> Void {
        { [metrics] in metrics.record($0) }
    }

    /// Starts serving and refreshing from `snapshot` (nil while there is nothing to read).
    func start(snapshot: @escaping @Sendable () -> LiveSnapshot?) throws {
        let metrics = self.metrics
        let refresh: @Sendable () -> Void = { if let now = snapshot() { metrics.update(now) } }
        try refresher.start(intervalNs: Self.refreshIntervalNs, name: "lagmon-refresh", refresh)
        try endpoint?.serve {
            refresh()
            return metrics.exposition()
        }
    }

    /// The line announcing the endpoint (tests and scripts wait for it).
    var listeningLine: String? {
        endpoint.map { endpoint in
            var address = endpoint.address
            address.port = endpoint.boundPort
            return "metrics at http://\(address.description)/metrics"
        }
    }

    /// Stops refreshing and serving, brings the metrics up to the end of `recording`, and pushes
    /// them if asked (without `lagmon_target_up`: the session is over); a failed push is a
    /// warning, never a failure.
    func finish(_ recording: SessionRecording, warn: (String) -> Void) {
        refresher.stop()
        endpoint?.stop()
        metrics.update(LiveSnapshot.ended(recording))
        // Every stall kept in full is listed here (the report file lists at most 1000), so none
        // seen only after it ended is missed; the folded ones are counted from their histogram.
        // Stalls seen live were counted with their culprits as they ended (the samplers named
        // the last ones as they finished); those counted here have no samples: culprit `none`.
        let builder = ReportBuilder(
            toolVersion: LagmonVersion.current, listing: StallListing(maxListed: .max, maxWithStacks: 0))
        let report = builder.build(recording)
        let processName = LiveSnapshot.ended(recording).processName
        metrics.recordUnseen(report.stalls, processName: processName)
        for (loop, recorded) in zip(report.loops, recording.loops) {
            metrics.recordUnseen(recorded.foldedStalls, loop: loop, processName: processName)
        }
        if let calls = report.blockingCalls {
            metrics.recordBlockingCalls(
                calls, unrecorded: report.blockingCallsUnrecorded ?? 0, processName: processName)
        }
        metrics.sessionEnded()
        guard let gateway else { return }
        let path = gateway.groupPath(labels: labels, defaultInstance: PushClient.hostName())
        if let failure = PushClient.put(metrics.exposition(), to: gateway, path: path) {
            warn(
                "warning: could not push metrics to \(QuotedText.printable(gatewayURL, limit: 200)): \(failure); the report and exit status are unaffected"
            )
        }
    }
}
