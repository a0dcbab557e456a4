import ArgumentParser
import LagmonCore
import LagmonLinux

/// Where a gate's verdict goes besides stderr: a JUnit XML file, a Markdown summary, a GitLab
/// code quality report, and the repository their culprits' files are placed in. Under GitHub
/// Actions (`GITHUB_ACTIONS=true`) annotations and the step summary need no option.
struct CIOutputOptions: ParsableArguments {
    @Option(
        name: .customLong("junit"),
        help: ArgumentHelp(
            "Write the verdict as JUnit XML to PATH: one test case per budget (for diff: per gated metric and per new stall fingerprint).",
            valueName: "path"),
        completion: .file())
    var junitPath: String?

    @Option(
        name: .customLong("summary-md"),
        help: ArgumentHelp("Write a Markdown summary of the verdict to PATH (for CI job pages).", valueName: "path"),
        completion: .file())
    var summaryPath: String?

    @Option(
        name: .customLong("gitlab-codequality"),
        help: ArgumentHelp(
            "Write the failed checks as a GitLab code quality report to PATH (artifacts:reports:codequality), each at its culprit's file and line.",
            valueName: "path"),
        completion: .file())
    var gitlabPath: String?

    @Option(
        name: .customLong("source-root"),
        help: ArgumentHelp(
            "The repository the culprits' source files are shown relative to, in GitHub annotations (file=, line=) and GitLab reports (default: the git top level of the current directory, else $GITHUB_WORKSPACE).",
            valueName: "path"),
        completion: .directory)
    var sourceRoot: String?

    /// Whether a file output was asked for.
    var requested: Bool { junitPath != nil || summaryPath != nil || gitlabPath != nil }

    func validate() throws {
        if let sourceRoot, !RepositoryRoot.isDirectory(sourceRoot) {
            throw ValidationError(
                "--source-root: \(QuotedText.printable(sourceRoot, limit: 120)) is not a directory; give the repository's top level"
            )
        }
    }
}
