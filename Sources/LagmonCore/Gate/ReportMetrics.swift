/// Reads gate metrics from a report. Stall, latency and blocking metrics need an observed loop:
/// without one, "0 stalls" would be a lie, so they read as unavailable and their budgets fail.
public struct ReportMetrics: Sendable {
    /// The report read.
    public var report: Report

    public init(_ report: Report) {
        self.report = report
    }

    /// The value of `metric` in the report.
    public func read(_ metric: BudgetMetric) -> MetricReading {
        switch metric {
        case .cpuAverage(let selector): return cpu(selector, \.avgPct)
        case .cpuMax(let selector): return cpu(selector, \.maxPct)
        case .strictCount, .strictTotal, .strictMax: return strict(metric)
        default: break
        }
        guard !report.loops.isEmpty, let value = loopValue(metric) else {
            return .unavailable("no run loop was observed (see the no-observer diagnostic)")
        }
        return .value(value)
    }

    /// A stall, latency or blocking metric; nil for the others.
    private func loopValue(_ metric: BudgetMetric) -> Double? {
        let summary = report.summary
        switch metric {
        case .stallCount: return Double(summary.stallCount)
        case .stallMax: return Double(summary.longestStallNs)
        case .stallTotal: return Double(summary.totalStallNs)
        case .stallPercentile(let p): return Double(stallPercentile(summary, p))
        case .latencyPercentile(let p): return Double(report.loops.map { latency($0.latency, p) }.max() ?? 0)
        case .latencyMax: return Double(report.loops.map(\.latency.maxNs).max() ?? 0)
        case .blockingTotal: return Double(summary.blockingNs)
        case .blockingRatio: return blockingPercent
        case .cpuAverage, .cpuMax, .strictCount, .strictTotal, .strictMax: return nil
        }
    }

    /// A StrictMode metric: over every loop's blocking calls (unrecorded ones count as calls).
    private func strict(_ metric: BudgetMetric) -> MetricReading {
        guard let calls = report.blockingCalls else {
            return .unavailable("blocking calls were not counted (--no-strict, --no-preload, or lagmon attach)")
        }
        guard !report.loops.isEmpty else {
            return .unavailable("no run loop was observed (see the no-observer diagnostic)")
        }
        switch metric {
        case .strictCount:
            return .value(Double(calls.reduce(report.blockingCallsUnrecorded ?? 0) { saturatingAdd($0, $1.count) }))
        case .strictTotal: return .value(Double(calls.reduce(0) { saturatingAdd($0, $1.totalNs) }))
        default: return .value(Double(calls.map(\.maxNs).max() ?? 0))
        }
    }

    /// Total blocking time as a percentage of the target's wall time (0 for no wall time).
    public var blockingPercent: Double {
        report.target.wallNs == 0 ? 0 : Double(report.summary.blockingNs) / Double(report.target.wallNs) * 100
    }

    private func latency(_ summary: LatencySummary, _ percentile: Int) -> UInt64 {
        switch percentile {
        case 50: summary.p50Ns
        case 90: summary.p90Ns
        default: summary.p99Ns
        }
    }

    /// The worst value of `stat` over the threads `selector` picks.
    private func cpu(_ selector: ThreadSelector, _ stat: KeyPath<ThreadCPU, Double>) -> MetricReading {
        guard !report.threads.isEmpty else {
            return .unavailable("no thread CPU was recorded (CPU sampling off, or the target ended first)")
        }
        let matches = selector.matches(in: report)
        guard let worst = matches.map({ $0.cpu[keyPath: stat] }).max() else {
            return .unavailable(
                "no thread matches \(QuotedText.printable(selector.description, limit: 40)) (\(report.threads.count) threads seen)"
            )
        }
        return .value(worst)
    }

    /// The summary's exact stall percentiles (over every stall, also those `stalls` omits).
    private func stallPercentile(_ summary: StallSummary, _ percentile: Int) -> UInt64 {
        switch percentile {
        case 50: summary.stallP50Ns
        case 90: summary.stallP90Ns
        default: summary.stallP99Ns
        }
    }
}
