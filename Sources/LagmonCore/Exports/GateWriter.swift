/// Turns a gate's verdict into the bytes of one output format (terminal lines, JUnit XML,
/// GitHub workflow commands, Markdown). Writers are pure, like `ReportWriter`s: only the command
/// line tool decides where the bytes go and reads the environment.
public protocol GateWriter: Sendable {
    /// The encoded verdict.
    func render(_ verdict: GateVerdict) throws -> [UInt8]
}
