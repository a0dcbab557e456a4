import ArgumentParser
import FoundationEssentials
import Glibc

/// Where the report goes and how the summary looks; shared by every command that reports.
struct OutputOptions: ParsableArguments {
    @Option(
        name: [.customShort("o"), .customLong("json")],
        help: ArgumentHelp("Write the JSON report to PATH ('-' for stdout).", valueName: "path"),
        completion: .file())
    var jsonPath: String?

    @Flag(name: .shortAndLong, help: "Print no summary on stderr.")
    var quiet = false

    @OptionGroup var color: ColorOptions

    /// Whether the stderr summary, status line and verdict may use colours (ColorPolicy).
    var colorsEnabled: Bool { color.colors(for: STDERR_FILENO) }
}
