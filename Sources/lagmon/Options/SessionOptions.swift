import ArgumentParser
import LagmonCore

/// The option groups `run` and `attach` share after their own (sampling, budgets, CI output,
/// exports, metrics), and the steps both take with them: the outputs checked before the session
/// starts, the budgets read, the outputs written once it ended.
struct SessionOptions: ParsableArguments {
    @OptionGroup(title: "Sampling") var sampling: SamplingOptions

    @OptionGroup(title: "Budgets") var budgets: BudgetOptions

    @OptionGroup(title: "CI output") var ci: CIOutputOptions

    @OptionGroup(title: "Pictures and exports") var exports: ExportOptions

    @OptionGroup(title: "Metrics") var metrics: MetricsOptions

    /// Where the outputs of `output` and these groups go, checked now (bad paths: 64).
    func sink(_ output: OutputOptions) throws -> OutputSink {
        try OutputSink(output: output, exports: exports, ci: ci)
    }

    /// The outputs to write once the session ended, into `sink`, judged by `budgets`.
    func outputs(_ output: OutputOptions, sink: OutputSink, budgets budgetList: [Budget]) -> SessionOutputs {
        SessionOutputs(
            output: output, exports: exports, ci: ci, sink: sink, budgets: budgetList, budgetsGiven: !budgets.isEmpty)
    }
}
