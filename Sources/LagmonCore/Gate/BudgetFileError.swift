/// A budget file that cannot be used: which part (a JSON path like `budgets[1].level`, empty for
/// the whole file) and why. The command line adds the file's name.
public struct BudgetFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Where in the file: `budgets[1].budget`, or empty for the whole document.
    public var path: String
    /// What is wrong and how to fix it.
    public var problem: String

    public init(path: String, problem: String) {
        self.path = path
        self.problem = problem
    }

    public var description: String { path.isEmpty ? problem : "\(path): \(problem)" }
}
