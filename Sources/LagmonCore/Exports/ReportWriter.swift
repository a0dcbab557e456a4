/// Turns a report into the bytes of one output format. Writers are pure: only the command line
/// tool decides where the bytes go (a file, stdout, stderr).
public protocol ReportWriter: Sendable {
    /// The encoded report.
    func render(_ report: Report) throws -> [UInt8]
}
