import Glibc
import LagmonCore
import LagmonLinux

/// Sends a finished report where the options say: JSON through the output sink, the summary to
/// stderr.
struct ReportOutput {
    var options: OutputOptions
    var sink: OutputSink

    func emit(_ report: Report) throws {
        try sink.write(JSONReportWriter().render(report), for: "--json")
        if !options.quiet {
            let summary = try TerminalSummaryWriter(style: TerminalStyle(colors: options.colorsEnabled)).render(report)
            try? AtomicFile.writeAll(summary, to: STDERR_FILENO)
        }
    }
}
