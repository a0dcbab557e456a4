import ArgumentParser
import FoundationEssentials
import Glibc
import LagmonCore

extension ColorPolicy: ExpressibleByArgument {}

/// `--color auto|always|never` and `--no-color`, shared by every command that prints: the one
/// place the CLI asks ColorPolicy whether a stream may be coloured.
struct ColorOptions: ParsableArguments {
    @Option(
        name: .customLong("color"),
        help: ArgumentHelp(
            "Colour the output: auto (on a terminal, unless NO_COLOR is set; FORCE_COLOR or CLICOLOR_FORCE force it), always or never.",
            valueName: "when"))
    var policy: ColorPolicy = .auto

    @Flag(name: .customLong("no-color"), help: "The same as --color never.")
    var noColor = false

    /// Whether output written to `descriptor` may use colours.
    func colors(for descriptor: Int32) -> Bool {
        (noColor ? .never : policy).colors(
            isTerminal: isatty(descriptor) == 1, environment: ProcessInfo.processInfo.environment)
    }
}
