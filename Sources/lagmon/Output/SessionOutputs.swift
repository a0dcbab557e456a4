import LagmonCore
import LagmonLinux

/// What `run` and `attach` write once their session ended: the report with its budgets judged,
/// the pictures and exports, then the gate's verdict and CI files.
struct SessionOutputs {
    var output: OutputOptions
    var exports: ExportOptions
    var ci: CIOutputOptions
    /// Where the outputs go, checked before the session started.
    var sink: OutputSink
    /// The budgets given (empty: no verdict unless a CI output was asked for).
    var budgets: [Budget]
    var budgetsGiven: Bool

    /// Builds the report of `recording` and writes everything; returns the verdict, nil when
    /// neither budgets nor CI outputs were asked for.
    func emit(_ recording: SessionRecording) throws -> GateVerdict? {
        var report = ReportBuilder(toolVersion: LagmonVersion.current).build(recording)
        report.run = RunInfo.current()
        if budgetsGiven { report.budgets = BudgetResult.evaluate(budgets, on: report) }
        // An output that cannot be written still leaves the others, the verdict and its files.
        let reported = Result { try ReportOutput(options: output, sink: sink).emit(report) }
        let exported = Result { try ExportOutput(options: exports, sink: sink).emit(report) }
        var gate = !budgetsGiven && !ci.requested ? nil : GateVerdict(budgets: report.budgets ?? [], report: report)
        gate?.openPaths = openPaths(reported: reported, exported: exported)
        if let gate {
            try GateOutput(sink: sink, quiet: output.quiet, colors: output.colorsEnabled, sourceRoot: ci.sourceRoot)
                .emit(gate)
        }
        try reported.get()
        try exported.get()
        return gate
    }

    /// The report and HTML page written to files, for a failed check to point at (not stdout,
    /// nor an output that failed).
    private func openPaths(reported: Result<Void, Error>, exported: Result<Void, Error>) -> [String] {
        var paths: [String] = []
        if case .success = reported, let json = output.jsonPath, sink.writesFile("--json") { paths.append(json) }
        if case .success = exported, let html = exports.htmlPath, sink.writesFile("--html") { paths.append(html) }
        return paths
    }
}
