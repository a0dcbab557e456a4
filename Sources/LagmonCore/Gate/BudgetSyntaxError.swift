/// A budget expression that could not be parsed: where (a 1-based column), what was found, and
/// what would be valid. `description` is one line, safe to print whatever the input held.
public struct BudgetSyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The whole expression as given.
    public var text: String
    /// 1-based position (in characters) of the offending text; one past the end for a missing part.
    public var column: Int
    /// The offending text, empty when something is missing.
    public var found: String
    /// What is wrong and how to fix it.
    public var problem: String
    /// What was being parsed: `budget`, or `tolerance` for `--max-regression`.
    public var subject: String

    public init(text: String, column: Int, found: String, problem: String, subject: String = "budget") {
        self.text = text
        self.column = column
        self.found = found
        self.problem = problem
        self.subject = subject
    }

    /// `invalid budget 'stall.max < 25parsecs' at column 13: unknown unit 'parsecs'; use …`.
    public var description: String {
        "invalid \(subject) '\(QuotedText.printable(text, limit: 80))' at column \(column): \(problem)"
    }
}
