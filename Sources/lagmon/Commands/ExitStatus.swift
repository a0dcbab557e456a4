import ArgumentParser
import Glibc
import LagmonCore
import LagmonLinux

/// The one place errors become messages and exit statuses (docs/exit-codes.md lists them).
enum ExitStatus {
    /// Bad command line.
    static let usage: Int32 = 64
    /// lagmon itself failed.
    static let internalFailure: Int32 = 125
    /// The command exists but cannot be executed.
    static let notExecutable: Int32 = 126
    /// The command was not found.
    static let notFound: Int32 = 127
    /// An output's reader closed its pipe (128 + SIGPIPE, what a shell shows for a program
    /// SIGPIPE ended; lagmon says so in one line instead of dying silently).
    static let brokenPipe: Int32 = 141
    /// An error-level budget failed (or `lagmon diff` found a regression) and the target succeeded.
    static let budgetFailed: Int32 = 99

    static let helpText = """
        Exit status: 0 when the target succeeded and every error-level budget passed; 99 when \
        an error-level budget failed but the target succeeded; otherwise the target's own status \
        (128+N when signal N killed it), budgets still evaluated; 64 bad usage (including an \
        invalid budget or output path); 125 lagmon failed; 126 command not executable; 127 \
        command not found; 141 an output's pipe was closed by its reader.
        """

    static let attachHelpText = """
        Exit status: 0, or 99 when an error-level budget failed; 64 bad usage (including a \
        pid that is a thread, an unknown --thread, or a --name several processes have); 125 \
        lagmon failed; 126 the process may not be watched (permission denied); 127 no such \
        process (or none with the --name).
        """

    /// `lagmon run`'s status: a failed target's own status wins (its failure says more than a
    /// budget's); otherwise 99 when the gate failed, 0 when it passed or there was none.
    static func afterRun(targetStatus: Int32, gate: GateVerdict?) -> Int32 {
        if targetStatus != 0 { return targetStatus }
        return gate?.passed == false ? budgetFailed : 0
    }

    /// `lagmon check` and `lagmon diff`: 99 when the gate failed, 0 when it passed.
    static func afterGate(_ gate: GateVerdict) -> Int32 {
        gate.passed ? 0 : budgetFailed
    }

    /// A failure lagmon reports as one line with the given status.
    struct Failure: Error {
        var message: String
        var status: Int32
    }

    static func exit(for error: Error) -> Never {
        switch error {
        case let failure as Failure:
            fail(failure.message, status: failure.status)
        case let launch as TargetProcess.LaunchError:
            switch launch {
            case .notFound: fail(launch.description, status: notFound)
            case .notExecutable, .missingInterpreter: fail(launch.description, status: notExecutable)
            case .failed: fail(launch.description, status: internalFailure)
            }
        case let attach as AttachFailure:
            fail(attach.description, status: status(of: attach))
        case let system as SystemError:
            fail("\(system)", status: internalFailure)
        default:
            exitForParser(error)
        }
    }

    /// `lagmon attach`'s failures mirror `run`'s: no such process is 127 (command not found),
    /// a process that may not be watched 126 (cannot execute).
    private static func status(of failure: AttachFailure) -> Int32 {
        switch failure {
        case .noSuchProcess, .exited, .noProcessNamed: notFound
        case .notPermitted: notExecutable
        case .notAProcess, .noSuchThread, .ambiguousThread, .lagmonItself, .badPidFile, .ambiguousName: usage
        case .failed: internalFailure
        }
    }

    private static func exitForParser(_ error: Error) -> Never {
        let code = Lagmon.exitCode(for: error)
        if code == .success || error is ExitCode {
            // --help, --version, or a command finishing with a chosen status.
            let message = Lagmon.fullMessage(for: error)
            if !message.isEmpty { print(message) }
            Glibc.exit(code.rawValue)
        }
        let firstLine = Lagmon.message(for: error).split(separator: "\n").first.map(String.init) ?? "invalid usage"
        let text = firstLine.prefix(1).lowercased() + firstLine.dropFirst() + subcommandSuggestion()
        let hint = text.contains("lagmon") ? "" : " (see lagmon --help)"
        fail(text + hint, status: usage)
    }

    /// `. Did you mean 'run'?` when the first argument is no subcommand but is close to one
    /// (the parser suggests options itself, not subcommands).
    private static func subcommandSuggestion() -> String {
        let arguments = CommandLine.arguments
        let names = Lagmon.configuration.subcommands.compactMap { $0.configuration.commandName }
        guard arguments.count > 1, !arguments[1].hasPrefix("-"), !names.contains(arguments[1]),
            let suggestion = Suggestion.closest(to: arguments[1], in: names)
        else { return "" }
        return ". Did you mean '\(suggestion)'?"
    }

    private static func fail(_ message: String, status: Int32) -> Never {
        StandardError.say(message)
        Glibc.exit(status)
    }
}
