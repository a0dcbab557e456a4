import ArgumentParser

/// Where a gate's verdict goes besides stderr: a JUnit XML file and a Markdown summary. Under
/// GitHub Actions (`GITHUB_ACTIONS=true`) annotations and the step summary need no option.
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

    /// Whether a file output was asked for.
    var requested: Bool { junitPath != nil || summaryPath != nil }
}
