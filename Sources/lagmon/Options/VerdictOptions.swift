import ArgumentParser
import FoundationEssentials
import Glibc

/// How `lagmon check` and `lagmon diff` print their verdict on stderr.
struct VerdictOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Print only the verdict line on stderr.")
    var quiet = false

    @OptionGroup var color: ColorOptions

    /// Whether stderr may use colours (ColorPolicy).
    var colorsEnabled: Bool { color.colors(for: STDERR_FILENO) }
}
