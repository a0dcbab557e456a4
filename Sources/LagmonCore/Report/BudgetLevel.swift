/// What a budget's failure does, as in Lighthouse CI's assertions.
public enum BudgetLevel: String, Codable, Sendable, CaseIterable {
    /// A failure fails the run (exit status 99).
    case error
    /// A failure is reported (a warning line, annotation, JUnit note) but the run passes.
    case warn
    /// The budget is not evaluated (a budget file can switch one off without deleting it).
    case off
}
