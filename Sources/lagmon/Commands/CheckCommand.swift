import ArgumentParser
import LagmonCore

/// `lagmon check REPORT.json --budget …`
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Evaluate budgets on a saved JSON report, without running anything.",
        discussion: """
            Reads a report written by 'lagmon run --json' and judges it like 'lagmon run' would, \
            with the same budgets, JUnit, Markdown and GitHub output. Exit status: 0 when every \
            error-level budget passes; 99 when one fails; 64 bad usage (an invalid budget, or a \
            file that is not a lagmon report). The target's own status, recorded in the report, \
            is shown in the verdict but does not change the exit status. With --push-gateway the \
            report's metrics are pushed too (then budgets are optional); a failed push is a \
            warning.
            """)

    @Argument(
        help: ArgumentHelp("A report written by lagmon run --json ('-' for standard input).", valueName: "report"),
        completion: .file(extensions: ["json"]))
    var reportPath: String

    @OptionGroup(title: "Budgets") var budgets: BudgetOptions

    @OptionGroup(title: "CI output") var ci: CIOutputOptions

    @OptionGroup var verdictOptions: VerdictOptions

    @OptionGroup(title: "Metrics") var push: PushOptions

    func validate() throws {
        guard !budgets.isEmpty || push.pushGateway != nil else {
            throw ValidationError("no budgets given; add --budget 'stall.max < 250ms', --warn … or --budget-file PATH")
        }
        _ = try OutputSink(ci: ci)
    }

    func run() throws {
        let sink = try OutputSink(ci: ci)
        let report = try SavedReport.load(reportPath)
        var gate = GateVerdict(budgets: BudgetResult.evaluate(try budgets.load(), on: report), report: report)
        gate.openPaths = [reportPath]
        if let gateway = push.gateway {
            ReportPush(gateway: gateway, url: push.pushGateway ?? "", labels: push.groupLabels).push(report)
        }
        try GateOutput(
            sink: sink, quiet: verdictOptions.quiet, colors: verdictOptions.colorsEnabled, sourceRoot: ci.sourceRoot
        ).emit(gate)
        throw ExitCode(ExitStatus.afterGate(gate))
    }
}
