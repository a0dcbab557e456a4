import ArgumentParser
import FoundationEssentials
import Glibc
import LagmonCore
import LagmonLinux

/// `lagmon report REPORT.json [--html PATH] [--folded PATH] …`
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Render a saved JSON report again: HTML, export formats, or the summary.",
        discussion: """
            Reads a report written by 'lagmon run --json' and writes the \
            pictures and exports asked for; without any, prints the summary on stdout. Exit \
            status: 0; 64 when the report cannot be read; 125 when an output cannot be written.
            """)

    @Argument(
        help: ArgumentHelp("The JSON report ('-' for standard input).", valueName: "report.json"),
        completion: .file(extensions: ["json"]))
    var reportPath: String

    @OptionGroup(title: "Pictures and exports") var exports: ExportOptions

    @OptionGroup var color: ColorOptions

    func validate() throws {
        _ = try OutputSink(exports: exports)
    }

    func run() throws {
        let sink = try OutputSink(exports: exports)
        let report = try SavedReport.load(reportPath)
        if exports.requested.isEmpty {
            let colors = color.colors(for: STDOUT_FILENO)
            try OutputSink.writeStdout(
                TerminalSummaryWriter(style: TerminalStyle(colors: colors)).render(report), what: "the summary")
        } else {
            try ExportOutput(options: exports, sink: sink).emit(report)
        }
    }
}
