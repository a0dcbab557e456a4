/// The operator of a budget: the measured value must compare this way with the limit.
public enum BudgetComparison: String, Codable, Sendable, CaseIterable {
    case lessThan = "<"
    case lessThanOrEqual = "<="
    case greaterThan = ">"
    case greaterThanOrEqual = ">="

    /// Whether `measured` satisfies the budget `measured OP limit`.
    public func holds(_ measured: Double, _ limit: Double) -> Bool {
        switch self {
        case .lessThan: measured < limit
        case .lessThanOrEqual: measured <= limit
        case .greaterThan: measured > limit
        case .greaterThanOrEqual: measured >= limit
        }
    }
}
