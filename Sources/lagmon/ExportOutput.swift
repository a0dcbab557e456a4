import Glibc
import LagmonCore
import LagmonLinux

/// The export formats, each a LagmonCore writer (pprof gzipped on the way out).
enum ExportFormat {
    case html, folded, speedscope, chromeTrace, pprof

    var writer: any ReportWriter {
        switch self {
        case .html: HTMLReportWriter()
        case .folded: FoldedStacksWriter()
        case .speedscope: SpeedscopeWriter()
        case .chromeTrace: ChromeTraceWriter()
        case .pprof: GzipWriter(PprofWriter())
        }
    }
}

/// Writes every requested export of a finished report, each atomically (or to stdout for `-`).
struct ExportOutput {
    var options: ExportOptions

    func emit(_ report: Report) throws {
        for export in options.requested {
            do {
                let bytes = try export.format.writer.render(report)
                if export.path == "-" {
                    try AtomicFile.writeAll(bytes, to: STDOUT_FILENO)
                } else {
                    try AtomicFile.write(bytes, to: export.path)
                }
            } catch {
                throw ExitStatus.Failure(
                    message: "could not write the \(export.option) output to \(export.path): \(error)",
                    status: ExitStatus.internalFailure)
            }
        }
    }
}
