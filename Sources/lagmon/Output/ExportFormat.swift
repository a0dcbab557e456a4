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
