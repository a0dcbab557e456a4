import FoundationEssentials
import Glibc
import LagmonCore
import LagmonLinux

/// Sends a gate's verdict where the options and the environment say: JUnit, Markdown and GitLab
/// files (through the output sink), GitHub annotations and step summary under GitHub Actions,
/// and the check lines and verdict on stderr, last. Culprits' source files are placed in the
/// repository first (`--source-root`, RepositoryRoot).
struct GateOutput {
    var sink: OutputSink
    /// Only the verdict line on stderr (`--quiet`).
    var quiet: Bool
    var colors: Bool
    /// `--source-root`, when given.
    var sourceRoot: String?
    var environment: [String: String] = ProcessInfo.processInfo.environment

    func emit(_ judged: GateVerdict) throws {
        let root = RepositoryRoot.locate(given: sourceRoot, environment: environment)
        let verdict = root.map(judged.locating(in:)) ?? judged
        try sink.write(JUnitWriter().render(verdict), for: "--junit")
        try sink.write(MarkdownSummaryWriter().render(verdict), for: "--summary-md")
        try sink.write(GitLabCodeQualityWriter().render(verdict), for: "--gitlab-codequality")
        if environment["GITHUB_ACTIONS"] == "true" { try github(verdict) }
        let text = try GateTextWriter(style: TerminalStyle(colors: colors), verdictOnly: quiet).render(verdict)
        try? AtomicFile.writeAll(text, to: STDERR_FILENO)
    }

    /// Annotations (on stderr when an output takes stdout: the GitHub runner reads workflow
    /// commands from both), and the Markdown summary appended to `$GITHUB_STEP_SUMMARY` (a file the
    /// runner shares between the step's commands, so appended to, never replaced). The summary is
    /// a nicety: failing to write it is a warning, not a failed gate.
    private func github(_ verdict: GateVerdict) throws {
        let annotations = try GitHubAnnotationWriter().render(verdict)
        try? AtomicFile.writeAll(annotations, to: sink.takesStdout ? STDERR_FILENO : STDOUT_FILENO)
        guard let path = environment["GITHUB_STEP_SUMMARY"], !path.isEmpty else { return }
        do {
            try AtomicFile.append(try MarkdownSummaryWriter().render(verdict), to: path)
        } catch {
            let line = "lagmon: warning: could not append the summary to GITHUB_STEP_SUMMARY (\(path)): \(error)\n"
            try? AtomicFile.writeAll(Array(line.utf8), to: STDERR_FILENO)
        }
    }
}
