import ArgumentParser
import Glibc
import LagmonCore
import LagmonLinux

/// Errors become one `lagmon:` line and a documented status here, and only here.
extension ExitStatus {
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
