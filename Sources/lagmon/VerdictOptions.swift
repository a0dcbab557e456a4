import ArgumentParser
import FoundationEssentials
import Glibc

/// How `lagmon check` and `lagmon diff` print their verdict on stderr.
struct VerdictOptions: ParsableArguments {
    @Flag(help: "Print only the verdict line on stderr.")
    var quiet = false

    @Flag(
        name: .customLong("no-color"),
        help: "Never colour the output (also off when stderr is not a terminal or NO_COLOR is set).")
    var noColor = false

    /// Whether stderr may use colours.
    var colorsEnabled: Bool {
        !noColor && isatty(STDERR_FILENO) == 1 && (ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty
    }
}
