/// One parsed budget, `METRIC[.STAT] OP VALUE[UNIT]`: `stall.max < 250ms`, `cpu[main].avg <= 50%`.
public struct BudgetExpression: Hashable, Sendable, CustomStringConvertible {
    /// What is measured.
    public var metric: BudgetMetric
    /// How the measurement must compare with the limit.
    public var comparison: BudgetComparison
    /// The limit, in the metric's unit: nanoseconds, a count, or percent.
    public var limit: Double
    /// The limit as written, without spaces (`250ms`, `0.25s`), so messages quote the user.
    public var limitText: String

    public init(metric: BudgetMetric, comparison: BudgetComparison, limit: Double, limitText: String) {
        self.metric = metric
        self.comparison = comparison
        self.limit = limit
        self.limitText = limitText
    }

    /// Parses `text`; the error says where and what is wrong.
    public init(parsing text: String) throws(BudgetSyntaxError) {
        var parser = BudgetExpressionParser(text)
        self = try parser.parse()
    }

    /// The budget normalised: the metric's full name, single spaces, the limit as written.
    public var description: String { "\(metric) \(comparison.rawValue) \(limitText)" }
}
