/// A budget and what its failure does: `--budget` gives `error`, `--warn` gives `warn`, a budget
/// file gives either per entry.
public struct Budget: Hashable, Sendable {
    /// The parsed expression.
    public var expression: BudgetExpression
    /// What a failure does.
    public var level: BudgetLevel

    public init(expression: BudgetExpression, level: BudgetLevel) {
        self.expression = expression
        self.level = level
    }

    /// Parses `text` as a budget of `level`.
    public init(parsing text: String, level: BudgetLevel) throws(BudgetSyntaxError) {
        self.init(expression: try BudgetExpression(parsing: text), level: level)
    }
}
