import ArgumentParser
import Glibc
import LagmonCore
import LagmonLinux

@main
struct Lagmon: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lagmon",
        abstract: "Watch a program's event loop for stalls and report what blocked it.",
        discussion: ExitStatus.helpText,
        version: BuildStamp.versionLine,
        subcommands: [
            RunCommand.self, AttachCommand.self, DumpCommand.self, ReportCommand.self, CheckCommand.self,
            DiffCommand.self,
        ])

    @Flag(name: .customShort("V"), help: "Show the version (as --version does).")
    var showVersion = false

    /// Parses, runs, and maps every failure to one `lagmon:` line and a documented exit status.
    static func main() {
        // First: every thread started from here on (metrics servers, pushers, helpers, any a
        // library starts) inherits the block, and one thread takes these signals for good.
        SignalForwarder.takeOver()
        // Before anything is opened: a closed stdin, stdout or stderr must not become a file of ours.
        guard StandardDescriptors.reserve() else { Glibc.exit(ExitStatus.internalFailure) }
        do {
            var command = try parseNegativeValuesNamed()
            try command.run()
        } catch {
            ExitStatus.exit(for: error)
        }
    }

    /// Parses the command line; when that fails and an option was given a negative value as
    /// the next word (`--kill-after -1s`, read as an option and reported as a missing value),
    /// parses it again with the value attached, so the error names the negative value.
    private static func parseNegativeValuesNamed() throws -> ParsableCommand {
        do {
            return try parseAsRoot()
        } catch {
            guard let joined = NegativeOptionValues.joined(Array(CommandLine.arguments.dropFirst())) else {
                throw error
            }
            return try parseAsRoot(joined)
        }
    }

    /// `lagmon -V` prints the version; bare `lagmon` is a usage error: the help on stderr, 64.
    func run() throws {
        if showVersion {
            print(BuildStamp.versionLine)
            return
        }
        try? AtomicFile.writeAll(Array((Self.helpMessage() + "\n").utf8), to: STDERR_FILENO)
        throw ExitCode(ExitStatus.usage)
    }
}
