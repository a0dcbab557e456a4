import LagmonCore

/// Fuzzes the report reader: whatever `lagmon report`, `diff` and `check` load is decoded and,
/// when it decodes, taken through everything they do with it (the summary, every export, the
/// budgets, a diff against itself and its page). Nothing may trap; decoding errors are expected.
@_cdecl("LLVMFuzzerTestOneInput")
public func reportReaderFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let report = try? JSONReportWriter.decode(bytes) else { return 0 }
    ReportConsumers.exercise(report)
    return 0
}

/// What the commands do with a loaded report.
enum ReportConsumers {
    static let budgets: [Budget] = [
        "stall.count < 1", "stall.max < 250ms", "stall.total < 1s", "stall.p99 < 100ms", "latency.p99 < 16ms",
        "latency.max < 1s", "blocking.total < 500ms", "blocking.ratio < 5%", "cpu.main.avg < 50%",
        "cpu.main.max < 90%",
    ].compactMap { try? Budget(parsing: $0, level: .error) }

    static func exercise(_ report: Report) {
        let writers: [any ReportWriter] = [
            JSONReportWriter(), TerminalSummaryWriter(style: TerminalStyle(colors: true)), HTMLReportWriter(),
            FoldedStacksWriter(), ChromeTraceWriter(), SpeedscopeWriter(), PprofWriter(),
        ]
        for writer in writers { _ = try? writer.render(report) }
        let verdict = GateVerdict(budgets: BudgetResult.evaluate(budgets, on: report), report: report)
        let diff = ReportDiff(baseline: report, current: report, options: .init()).verdict(subject: "fuzz")
        _ = DiffHTMLWriter().render(baseline: report, current: report, verdict: diff)
        let gateWriters: [any GateWriter] = [
            GateTextWriter(style: TerminalStyle(colors: false)), JUnitWriter(), MarkdownSummaryWriter(),
            GitHubAnnotationWriter(),
        ]
        for writer in gateWriters {
            _ = try? writer.render(verdict)
            _ = try? writer.render(diff)
        }
    }
}
