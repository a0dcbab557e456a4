import ArgumentParser
import FoundationEssentials
import Glibc

/// Where the report goes and how the summary looks; shared by every command that reports.
struct OutputOptions: ParsableArguments {
    @Option(
        name: .customLong("json"),
        help: ArgumentHelp("Write the JSON report to PATH ('-' for stdout).", valueName: "path"))
    var jsonPath: String?

    @Flag(help: "Print no summary on stderr.")
    var quiet = false

    @Flag(
        name: .customLong("no-color"),
        help: "Never colour the summary (also off when stderr is not a terminal or NO_COLOR is set).")
    var noColor = false

    /// The JSON report's output, for the output sink.
    var outputRequests: [OutputSink.Request] {
        jsonPath.map { [OutputSink.Request(option: "--json", what: "the JSON report", path: $0)] } ?? []
    }

    /// Whether the stderr summary may use colours.
    var colorsEnabled: Bool {
        !noColor && isatty(STDERR_FILENO) == 1 && (ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty
    }
}
