import LagmonCore

/// One saved recording of the golden test with what the CLI would be asked for: budgets judged
/// on its report, or another recording to diff it against.
struct GoldenCase: Sendable, CustomStringConvertible {
    /// The folder of its golden files under Tests/Goldens.
    var name: String
    var recording: SessionRecording
    /// `--budget` (error) and `--warn` (warn) expressions; nil: no verdict.
    var budgets: [(text: String, level: BudgetLevel)]?
    /// A baseline recording: the verdict is `lagmon diff baseline current` instead.
    var baseline: SessionRecording?

    var description: String { name }

    /// The version stamped into golden reports: fixed, so a release does not change them.
    static let toolVersion = "0.0.0-golden"

    static let all: [GoldenCase] = [
        GoldenCase(
            name: "image-list", recording: GoldenRecordings.imageList,
            budgets: [
                ("stall.max < 250ms", .error), ("stall.count <= 10", .error), ("latency.p99 < 300ms", .error),
                ("cpu[main].avg < 30%", .warn), ("cpu[decode-worker].max < 50%", .error),
                ("cpu[no-such-thread].max < 50%", .warn), ("blocking.ratio < 5%", .warn),
            ]),
        GoldenCase(
            name: "workers", recording: GoldenRecordings.workers,
            budgets: [("stall.p90 < 100ms", .error), ("stall.total < 1s", .error)]),
        GoldenCase(name: "attached", recording: GoldenRecordings.attached, budgets: [("stall.max < 200ms", .error)]),
        GoldenCase(name: "unobserved", recording: GoldenRecordings.unobserved, budgets: [("stall.count < 1", .error)]),
        GoldenCase(
            name: "image-list-diff", recording: GoldenRecordings.imageList, baseline: GoldenRecordings.fewerStalls),
    ]

    /// The report the CLI would write, budgets judged.
    func report() throws -> Report {
        var report = Self.build(recording)
        if let budgets {
            let parsed = try budgets.map { try Budget(parsing: $0.text, level: $0.level) }
            report.budgets = BudgetResult.evaluate(parsed, on: report)
        }
        return report
    }

    /// The gate's verdict, when the case has one, its culprits placed in the golden sources'
    /// root (`/src`) and pointing at the files the CLI would have written.
    func verdict(of report: Report) -> GateVerdict? {
        var verdict: GateVerdict
        if let baseline {
            verdict = ReportDiff(baseline: Self.build(baseline), current: report, options: ReportDiff.Options())
                .verdict(subject: "baseline.json → current.json")
            verdict.openPaths = ["current.json"]
        } else if budgets != nil {
            verdict = GateVerdict(budgets: report.budgets ?? [], report: report)
            verdict.openPaths = ["report.json", "report.html"]
        } else {
            return nil
        }
        return verdict.locating(in: SourceRoot(["/src"]))
    }

    static func build(_ recording: SessionRecording) -> Report {
        ReportBuilder(toolVersion: toolVersion).build(recording)
    }
}

extension GoldenRecordings {
    /// The image list before the lock and run-queue stalls crept in: the diff's baseline.
    static var fewerStalls: SessionRecording {
        var recording = imageList
        let kept = recording.loops[0].stallRecords.filter { $0.startNs < recording.spawnNs + 1_200 * ms }
        recording.loops[0].stallRecords = kept
        recording.loops[0].openBusySinceNs = nil
        recording.loops[0].lastSnapshot = LoopSnapshot(activity: .beforeWaiting, sinceNs: recording.endNs - 5 * ms)
        recording.threads = []
        return recording
    }
}
