import ArgumentParser
import LagmonCore

/// `lagmon diff BASELINE.json CURRENT.json [--max-regression METRIC:+TOL]… [--min-change D] [--html PATH]`
struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Compare a report with a baseline and fail on regressions beyond tolerance.",
        discussion: """
            Shows every metric's change, and stall fingerprints that are new, grown or gone. \
            Without --max-regression, stall.count, stall.max, stall.total and blocking.total may \
            grow by 10 %. A new stall fingerprint is a regression unless --allow-new-stalls. \
            Exit status: 0 no regression; 99 a regression beyond tolerance; 64 bad usage.
            """)

    @Argument(
        help: ArgumentHelp(
            "The report to compare against (lagmon run --json; '-' for standard input).", valueName: "baseline"),
        completion: .file(extensions: ["json"]))
    var baselinePath: String

    @Argument(
        help: ArgumentHelp("The report to judge ('-' for standard input).", valueName: "current"),
        completion: .file(extensions: ["json"]))
    var currentPath: String

    @Option(
        name: .customLong("max-regression"),
        help: ArgumentHelp(
            "How much worse METRIC may get: relative (stall.p99:+10%) or absolute (stall.max:+20ms, stall.count:+1); '*:+10%' for every metric. Repeatable.",
            valueName: "metric:+tolerance"))
    var tolerances: [String] = []

    @Option(
        name: .customLong("min-change"),
        parsing: .unconditional,
        help: ArgumentHelp(
            "Noise floor: duration changes smaller than this are no change (default: 1ms).", valueName: "duration"),
        transform: DurationArgument.parse)
    var minChange = DurationArgument(nanoseconds: 1_000_000)

    @Flag(name: .customLong("allow-new-stalls"), help: "Report new stall fingerprints without failing.")
    var allowNewStalls = false

    @Option(
        name: .customLong("html"),
        help: ArgumentHelp(
            "Write the comparison as a self-contained HTML page to PATH: the checks and a differential flame graph (red: grew, blue: shrank).",
            valueName: "path"),
        completion: .file())
    var htmlPath: String?

    @OptionGroup(title: "CI output") var ci: CIOutputOptions

    @OptionGroup var verdictOptions: VerdictOptions

    func validate() throws {
        _ = try parsedTolerances()
        _ = try outputSink()
    }

    func run() throws {
        let sink = try outputSink()
        let baseline = try SavedReport.load(baselinePath)
        let current = try SavedReport.load(currentPath)
        let options = ReportDiff.Options(
            tolerances: try parsedTolerances(), minChangeNs: minChange.nanoseconds,
            failOnNewFingerprints: !allowNewStalls)
        var gate = ReportDiff(baseline: baseline, current: current, options: options)
            .verdict(subject: "\(baselinePath) → \(currentPath)")
        gate.openPaths = [currentPath] + (htmlPath.map { [$0] } ?? [])
        try sink.write(DiffHTMLWriter().render(baseline: baseline, current: current, verdict: gate), for: "--html")
        try GateOutput(
            sink: sink, quiet: verdictOptions.quiet, colors: verdictOptions.colorsEnabled, sourceRoot: ci.sourceRoot
        ).emit(gate)
        throw ExitCode(ExitStatus.afterGate(gate))
    }

    /// The CI outputs and the page, checked together.
    private func outputSink() throws -> OutputSink {
        let page = htmlPath.map { [OutputSink.Request(option: "--html", what: "the diff page", path: $0)] } ?? []
        return try OutputSink(ci.outputRequests + page)
    }

    private func parsedTolerances() throws -> [RegressionTolerance] {
        try tolerances.map { text in
            do {
                return try RegressionTolerance(parsing: text)
            } catch {
                throw ValidationError("--max-regression: \(error)")
            }
        }
    }
}
