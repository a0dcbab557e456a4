import FoundationEssentials
import Glibc
import LagmonCore
import LagmonLinux

/// Sends a gate's verdict where the options and the environment say: JUnit and Markdown files
/// (atomically), GitHub annotations and step summary under GitHub Actions, and the check lines and
/// verdict on stderr, last.
struct GateOutput {
    var ci: CIOutputOptions
    /// Only the verdict line on stderr (`--quiet`).
    var quiet: Bool
    var colors: Bool
    /// stdout carries the JSON report (`--json -`), so annotations go to stderr, which the
    /// GitHub runner also reads workflow commands from.
    var stdoutTaken: Bool
    var environment: [String: String] = ProcessInfo.processInfo.environment

    func emit(_ verdict: GateVerdict) throws {
        if let path = ci.junitPath { try write(JUnitWriter().render(verdict), to: path, what: "the JUnit report") }
        if let path = ci.summaryPath {
            try write(MarkdownSummaryWriter().render(verdict), to: path, what: "the Markdown summary")
        }
        if environment["GITHUB_ACTIONS"] == "true" { try github(verdict) }
        let text = try GateTextWriter(style: TerminalStyle(colors: colors), verdictOnly: quiet).render(verdict)
        try? AtomicFile.writeAll(text, to: STDERR_FILENO)
    }

    private func write(_ bytes: [UInt8], to path: String, what: String) throws {
        do {
            try AtomicFile.write(bytes, to: path)
        } catch {
            throw ExitStatus.Failure(
                message: "could not write \(what) to \(path): \(error)", status: ExitStatus.internalFailure)
        }
    }

    /// Annotations, and the Markdown summary appended to `$GITHUB_STEP_SUMMARY` (a file the
    /// runner shares between the step's commands, so appended to, never replaced). The summary is
    /// a nicety: failing to write it is a warning, not a failed gate.
    private func github(_ verdict: GateVerdict) throws {
        let annotations = try GitHubAnnotationWriter().render(verdict)
        try? AtomicFile.writeAll(annotations, to: stdoutTaken ? STDERR_FILENO : STDOUT_FILENO)
        guard let path = environment["GITHUB_STEP_SUMMARY"], !path.isEmpty else { return }
        do {
            try AtomicFile.append(try MarkdownSummaryWriter().render(verdict), to: path)
        } catch {
            let line = "lagmon: warning: could not append the summary to GITHUB_STEP_SUMMARY (\(path)): \(error)\n"
            try? AtomicFile.writeAll(Array(line.utf8), to: STDERR_FILENO)
        }
    }
}
