import Glibc
import LagmonCore
import LagmonLinux

/// Sends a finished report where the options say: JSON to a file (atomically) or stdout, the
/// summary to stderr.
struct ReportOutput {
    var options: OutputOptions

    func emit(_ report: Report) throws {
        if let path = options.jsonPath {
            let bytes = try JSONReportWriter().render(report)
            do {
                if path == "-" {
                    try AtomicFile.writeAll(bytes, to: STDOUT_FILENO)
                } else {
                    try AtomicFile.write(bytes, to: path)
                }
            } catch {
                throw ExitStatus.Failure(
                    message: "could not write the JSON report to \(path): \(error)", status: ExitStatus.internalFailure)
            }
        }
        if !options.quiet {
            let summary = try TerminalSummaryWriter(style: TerminalStyle(colors: options.colorsEnabled)).render(report)
            try? AtomicFile.writeAll(summary, to: STDERR_FILENO)
        }
    }
}
