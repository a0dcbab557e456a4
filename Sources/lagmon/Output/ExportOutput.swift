import LagmonCore
import LagmonLinux

/// Writes every requested export of a finished report through the output sink. Each is
/// attempted: one that cannot be written does not stop the others; the first failure is thrown
/// once all were tried.
struct ExportOutput {
    var options: ExportOptions
    var sink: OutputSink

    func emit(_ report: Report) throws {
        var failure: Error?
        for export in options.requested {
            do {
                try sink.write(export.format.writer.render(report), for: export.option)
            } catch {
                failure = failure ?? error
            }
        }
        if let failure { throw failure }
    }
}
