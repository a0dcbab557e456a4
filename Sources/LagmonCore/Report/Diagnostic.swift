/// Something a reader of the report should know that is not a stall.
public struct Diagnostic: Codable, Sendable, Equatable {
    /// How much it matters.
    public enum Severity: String, Codable, Sendable {
        case info, warning, error
    }

    /// Stable identifier (`no-observer`, `watchdog-late`, …), listed in docs/report.md.
    public var code: String
    /// How much it matters.
    public var severity: Severity
    /// One sentence for people.
    public var message: String

    public init(code: String, severity: Severity, message: String) {
        self.code = code
        self.severity = severity
        self.message = message
    }
}
