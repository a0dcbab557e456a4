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

    /// Evaluates `budget` on `metrics`.
    public init(_ budget: Budget, metrics: ReportMetrics) {
        let expression = budget.expression
        self.expression = expression.description
        self.level = budget.level
        self.metric = expression.metric.description
        self.comparison = expression.comparison
        self.unit = expression.metric.dimension.reportUnit
        self.limit = expression.limit
        switch metrics.read(expression.metric) {
        case .value(let value):
            measured = value
            passed = expression.comparison.holds(value, expression.limit)
            unavailable = nil
        case .unavailable(let reason):
            measured = nil
            passed = false
            unavailable = reason
        }
    }

    /// Evaluates every budget that is not `off`, in the order given.
    public static func evaluate(_ budgets: [Budget], on report: Report) -> [BudgetResult] {
        let metrics = ReportMetrics(report)
        return budgets.filter { $0.level != .off }.map { BudgetResult($0, metrics: metrics) }
    }
}
