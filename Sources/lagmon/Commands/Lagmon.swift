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
        // Before anything is opened: a closed stdin, stdout or stderr must not become a file of ours.
        guard StandardDescriptors.reserve() else { Glibc.exit(ExitStatus.internalFailure) }
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            ExitStatus.exit(for: error)
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
