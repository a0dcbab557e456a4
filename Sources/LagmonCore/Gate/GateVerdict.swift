/// What a gate decided: its checks, the facts that frame them (stall count, blocking time, the
/// target's status) and the one verdict line lagmon prints last.
public struct GateVerdict: Sendable, Equatable {
    /// The kind of gate: `budgets` or `diff` (the JUnit suite is `lagmon budgets`).
    public var title: String
    /// What was judged: the target's command, or `baseline.json → current.json`.
    public var subject: String
    /// Every check, in the order given.
    public var checks: [GateCheck]
    /// Short facts for the verdict line and summaries: `7 stalls`, `blocking 1.2s (4.1%)`.
    public var facts: [String]
    /// Seconds the judged run took (JUnit's `time`); 0 when unknown.
    public var seconds: Double
    /// A failure of the judged program itself, when it failed: `target exited with status 3`.
    public var targetFailure: String?
    /// What the checks are called in the verdict line, singular: `budget`, `check`.
    public var checkNoun: String
    /// Files with the whole story, for people to open from a failed check: the JSON report and
    /// HTML page lagmon wrote for the run (or the report `check` and `diff` read), as given.
    public var openPaths: [String] = []

    public init(
        title: String, subject: String, checks: [GateCheck], facts: [String], seconds: Double = 0,
        targetFailure: String? = nil, checkNoun: String = "check"
    ) {
        self.title = title
        self.subject = subject
        self.checks = checks
        self.facts = facts
        self.seconds = seconds
        self.targetFailure = targetFailure
        self.checkNoun = checkNoun
    }

    /// The verdict on budgets `results` for `report`.
    public init(budgets results: [BudgetResult], report: Report) {
        let metrics = ReportMetrics(report)
        let summary = report.summary
        let blocking = MetricDimension.duration.format(Double(summary.blockingNs))
        let facts =
            report.loops.isEmpty
            ? ["no run loop observed"]
            : [
                summary.stallCount == 1 ? "1 stall" : "\(summary.stallCount) stalls",
                "blocking \(blocking) (\(MetricDimension.percent.format(metrics.blockingPercent)))",
            ]
        let target = report.target
        let failure: String? =
            target.signalName.map { "target killed by \($0)" }
            ?? target.exitStatus.flatMap { $0 == 0 ? nil : "target exited with status \($0)" }
        self.init(
            title: "budgets", subject: TargetCommand.display(target.command),
            checks: results.map { GateCheck($0, report: report) },
            facts: facts, seconds: Double(target.wallNs) / 1e9, targetFailure: failure, checkNoun: "budget")
    }

    /// The verdict with every culprit's source file placed in `root` (`GateCulprit.sourcePath`).
    public func locating(in root: SourceRoot) -> GateVerdict {
        var located = self
        for index in located.checks.indices {
            guard var evidence = located.checks[index].evidence else { continue }
            for culprit in evidence.culprits.indices {
                evidence.culprits[culprit].sourcePath = evidence.culprits[culprit].file.flatMap(root.relative)
            }
            located.checks[index].evidence = evidence
        }
        return located
    }

    /// Whether every error-level check held (the target's own status is judged separately).
    public var passed: Bool { !checks.contains(where: \.failsGate) }

    /// `FAIL stall.max=312ms (limit <250ms) · 7 stalls · blocking 1.2s (4.1%)`, or `PASS 3 budgets · …`.
    public var line: String {
        let gated = checks.filter { $0.severity != .info }
        var head: String
        if passed {
            head = "PASS \(gated.count) \(checkNoun)\(gated.count == 1 ? "" : "s")"
            let warnings = checks.filter(\.isWarning)
            if !warnings.isEmpty {
                head +=
                    " (\(warnings.count == 1 ? "1 warning" : "\(warnings.count) warnings"): "
                    + Self.first(warnings.map(\.message)) + ")"
            }
        } else {
            head = "FAIL " + Self.first(checks.filter(\.failsGate).map(\.message))
        }
        return ([head] + (targetFailure.map { [$0] } ?? []) + facts).joined(separator: " · ")
    }

    /// The first three messages, then how many more.
    private static func first(_ messages: [String]) -> String {
        let shown = messages.prefix(3).joined(separator: ", ")
        return messages.count > 3 ? shown + " and \(messages.count - 3) more" : shown
    }
}
