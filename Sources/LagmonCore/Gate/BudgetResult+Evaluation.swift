extension BudgetResult {
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
