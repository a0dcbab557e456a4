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
}
