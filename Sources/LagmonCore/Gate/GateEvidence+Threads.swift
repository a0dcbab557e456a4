extension GateEvidence {
    /// StrictMode's heaviest call sites for `metric`: by calls for `strict.count`, by time for
    /// `strict.total`, by the longest call for `strict.max`.
    static func blockingCalls(_ metric: BudgetMetric, _ report: Report) -> GateEvidence? {
        guard let calls = report.blockingCalls, !calls.isEmpty else { return nil }
        let weight: (BlockingCallReport) -> UInt64 =
            switch metric {
            case .strictCount: { $0.count }
            case .strictMax: { $0.maxNs }
            default: { $0.totalNs }
            }
        let heaviest = calls.sorted { weight($0) > weight($1) }.prefix(maxCulprits)
        let total = calls.reduce(0) { saturatingAdd($0, $1.count) }
        return GateEvidence(
            summary: "\(total) blocking calls on loop threads from \(calls.count) call sites, the heaviest below",
            culprits: heaviest.map(culprit(of:)))
    }

    /// A blocking call site as a culprit: the call, how often and how long, and the code calling it.
    private static func culprit(of call: BlockingCallReport) -> GateCulprit {
        let format = DurationText.format(nanoseconds:)
        let name = QuotedText.printable(call.call, limit: 60)
        let thread = "thread \(call.thread.tid) \"\(QuotedText.printable(call.thread.name, limit: 40))\""
        return GateCulprit(
            subject: "\(call.count) \(name) \(call.count == 1 ? "call" : "calls") (\(call.category)) on \(thread)",
            diagnosis: "\(format(call.totalNs)) in all, the longest \(format(call.maxNs))",
            function: call.site.symbol.map { QuotedText.printable($0, limit: 200) },
            file: call.site.file.map { QuotedText.printable($0, limit: 400) }, line: call.site.line,
            frames: [GateCulprit.frameText(call.site)])
    }

    /// The busiest thread `selector` picks (by the metric's statistic), with the stack of its
    /// highest CPU alert or, without one, its CPU-bound stalls.
    static func busiestThread(_ selector: ThreadSelector, _ metric: BudgetMetric, _ report: Report) -> GateEvidence? {
        let stat: KeyPath<ThreadCPU, Double> = if case .cpuMax = metric { \.maxPct } else { \.avgPct }
        let matches = selector.matches(in: report)
        guard let thread = matches.max(by: { ($0.cpu[keyPath: stat], $1.tid) < ($1.cpu[keyPath: stat], $0.tid) })
        else { return nil }
        let avg = MetricDimension.percent.format(thread.cpu.avgPct)
        let max = MetricDimension.percent.format(thread.cpu.maxPct)
        let summary =
            "thread \(thread.tid) \"\(QuotedText.printable(thread.name, limit: 40))\": avg \(avg), max \(max) of a core"
            + (matches.count > 1 ? " (the busiest of \(matches.count) threads)" : "")
        if let alert = thread.alerts.filter({ !$0.frames.isEmpty }).max(by: { $0.cpuPct < $1.cpuPct }) {
            return GateEvidence(summary: summary, culprits: [culprit(of: alert)])
        }
        let busy = report.stalls.filter { $0.thread.tid == thread.tid && $0.diagnosis.kind == .cpu }
        return GateEvidence(summary: summary, culprits: worstStalls(busy, in: report))
    }

    /// A CPU alert as a culprit: its innermost application frame with a source line, and its stack.
    private static func culprit(of alert: CPUAlert) -> GateCulprit {
        let stack = Array(alert.frames.reversed())
        let application = stack.first { FrameIdentity($0).isApplication }
        let sourced = stack.first { $0.file != nil && FrameIdentity($0).isApplication }
        let at = DurationText.fixed(Double(alert.atNs) / 1e9, digits: 3)
        return GateCulprit(
            subject: "CPU alert at +\(at)s", diagnosis: "\(MetricDimension.percent.format(alert.cpuPct)) of a core",
            function: (sourced ?? application ?? stack.first).map { QuotedText.printable($0.displayName, limit: 200) },
            file: sourced?.file.map { QuotedText.printable($0, limit: 400) }, line: sourced?.line,
            frames: stack.prefix(GateCulprit.maxFrames).map(GateCulprit.frameText))
    }
}
