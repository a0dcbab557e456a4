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
}
