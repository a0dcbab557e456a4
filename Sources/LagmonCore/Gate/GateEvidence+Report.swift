extension GateEvidence {
    /// The evidence behind `metric`'s value in `report`: stall, blocking and latency metrics
    /// show the worst stalls (the longest of each fingerprint), StrictMode metrics the heaviest
    /// call sites, CPU metrics the busiest thread the selector picks. Nil when the report holds
    /// nothing to show (no loop, no thread).
    public init?(for metric: BudgetMetric, in report: Report) {
        switch metric {
        case .stallCount, .stallMax, .stallTotal, .stallPercentile, .blockingTotal, .blockingRatio:
            guard !report.stalls.isEmpty else { return nil }
            self.init(summary: Self.stallSummary(report), culprits: Self.worstStalls(report.stalls, in: report))
        case .latencyPercentile, .latencyMax:
            guard let evidence = Self.busyPeriods(report) else { return nil }
            self = evidence
        case .strictCount, .strictTotal, .strictMax:
            guard let evidence = Self.blockingCalls(metric, report) else { return nil }
            self = evidence
        case .cpuAverage(let selector), .cpuMax(let selector):
            guard let evidence = Self.busiestThread(selector, metric, report) else { return nil }
            self = evidence
        }
    }

    /// The stalls of fingerprint `id` in `report` (a new or grown fingerprint of `lagmon diff`);
    /// nil when none of its stalls is listed.
    public init?(fingerprint id: String, in report: Report) {
        let stalls = report.stalls.filter { $0.fingerprint == id }
        guard !stalls.isEmpty else { return nil }
        let count = report.fingerprints.first { $0.id == id }?.count ?? stalls.count
        self.init(
            summary: count == 1 ? "1 stall in this code" : "\(count) stalls in this code",
            culprits: Self.worstStalls(stalls, in: report))
    }

    /// `6 stalls in 3 code paths`.
    private static func stallSummary(_ report: Report) -> String {
        let count = report.summary.stallCount
        let paths = Set(report.stalls.map { $0.fingerprint ?? "#\($0.id)" }).count
        return (count == 1 ? "1 stall" : "\(count) stalls")
            + (paths == 1 ? " in 1 code path" : " in \(paths) code paths") + ", the longest of each below"
    }

    /// The longest stall of each fingerprint (a stall without one stands alone), longest first.
    static func worstStalls(_ stalls: [StallReport], in report: Report) -> [GateCulprit] {
        let ordered = stalls.sorted { $0.durationNs != $1.durationNs ? $0.durationNs > $1.durationNs : $0.id < $1.id }
        var seen = Set<String>()
        var culprits: [GateCulprit] = []
        for stall in ordered where culprits.count < maxCulprits {
            guard seen.insert(stall.fingerprint ?? "#\(stall.id)").inserted else { continue }
            let alike = stall.fingerprint.map { id in stalls.filter { $0.fingerprint == id }.count } ?? 1
            culprits.append(culprit(of: stall, alike: alike, in: report))
        }
        return culprits
    }

    /// A stall as a culprit: its diagnosis, its culprit frame (or, without a source line there,
    /// the innermost application frame that has one) and the top of its most common stack.
    static func culprit(of stall: StallReport, alike: Int, in report: Report) -> GateCulprit {
        let stack = Array((stall.stacks.first?.frames ?? []).reversed())
        var subject = "stall #\(stall.id) (\(DurationText.format(nanoseconds: stall.durationNs))"
        if alike > 1 { subject += ", the longest of \(alike) in this code" }
        subject += ")" + threadPlace(of: stall, in: report)
        var culprit = GateCulprit(
            subject: subject, diagnosis: QuotedText.printable(stall.diagnosis.text, limit: 300),
            function: stall.culprit.map { QuotedText.printable($0.displayName, limit: 200) },
            frames: stack.prefix(GateCulprit.maxFrames).map(GateCulprit.frameText))
        if let (frame, isCaller) = source(of: stall, stack: stack, in: report) {
            culprit.file = frame.file.map { QuotedText.printable($0, limit: 400) }
            culprit.line = frame.line
            culprit.lineIsCaller = isCaller
            if culprit.function == nil { culprit.function = QuotedText.printable(frame.displayName, limit: 200) }
        }
        return culprit
    }

    /// The frame giving the culprit's source line: the culprit itself when its address has one;
    /// else the same function in another sample of the stall or of its fingerprint's other
    /// stalls (an address the compiler gave no line, where a neighbour has one); else the
    /// innermost application frame of the stack with a line, which called it (`isCaller`).
    private static func source(of stall: StallReport, stack: [Frame], in report: Report) -> (Frame, isCaller: Bool)? {
        if let culprit = stall.culprit {
            if culprit.file != nil { return (culprit, false) }
            let identity = FrameIdentity(culprit)
            let alike = report.stalls.filter {
                $0.id != stall.id && $0.fingerprint != nil && $0.fingerprint == stall.fingerprint
            }
            for candidate in (stall.stacks + alike.flatMap(\.stacks)).lazy.flatMap({ $0.frames.reversed() })
            where candidate.file != nil && FrameIdentity(candidate) == identity {
                return (candidate, false)
            }
        }
        return stack.first { $0.file != nil && isApplication($0) }.map { ($0, stall.culprit != nil) }
    }

    /// The longest busy periods: the stalls when there are any (every busy period past the
    /// threshold is one), else the longest period's loop, which has no stack.
    private static func busyPeriods(_ report: Report) -> GateEvidence? {
        if !report.stalls.isEmpty {
            return GateEvidence(
                summary: "busy periods past the threshold are stalls; the longest of each code path below",
                culprits: worstStalls(report.stalls, in: report))
        }
        guard let loop = report.loops.max(by: { $0.latency.maxNs < $1.latency.maxNs }) else { return nil }
        let threshold = DurationText.format(nanoseconds: report.config.thresholdNs)
        return GateEvidence(
            summary:
                "longest busy period \(DurationText.format(nanoseconds: loop.latency.maxNs)) on thread \(loop.thread.tid) \"\(QuotedText.printable(loop.thread.name, limit: 40))\" (no stall over \(threshold), so no stack)",
            culprits: [])
    }

    private static func isApplication(_ frame: Frame) -> Bool { FrameIdentity(frame).isApplication }

    /// ` on thread 5001 "python3"` when the report watched several loops, else nothing.
    private static func threadPlace(of stall: StallReport, in report: Report) -> String {
        guard report.loops.count > 1 else { return "" }
        return " on thread \(stall.thread.tid) \"\(QuotedText.printable(stall.thread.name, limit: 40))\""
    }
}
