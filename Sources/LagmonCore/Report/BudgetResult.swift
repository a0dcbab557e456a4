/// How one budget fared on one report; recorded in the report's `budgets[]`.
public struct BudgetResult: Codable, Sendable, Equatable {
    /// The budget, normalised: `stall.max < 250ms`.
    public var expression: String
    /// `error` (fails the run) or `warn` (reported only).
    public var level: BudgetLevel
    /// The metric's canonical name: `stall.max`, `cpu[main].avg`.
    public var metric: String
    /// The operator: `<`, `<=`, `>` or `>=`.
    public var comparison: BudgetComparison
    /// The unit of `measured` and `limit`: `ns`, `count` or `%`.
    public var unit: String
    /// The limit, in `unit`.
    public var limit: Double
    /// The measured value, in `unit`; absent when the report could not give it.
    public var measured: Double?
    /// Whether the budget held. A budget whose metric could not be measured did not.
    public var passed: Bool
    /// Why the metric could not be measured (absent when it was).
    public var unavailable: String?
}
