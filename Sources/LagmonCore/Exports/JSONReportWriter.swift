import FoundationEssentials

/// The versioned JSON report (docs/report.md, docs/report.schema.json): keys sorted, so the
/// same report always encodes to the same bytes.
public struct JSONReportWriter: ReportWriter {
    public init() {}

    public func render(_ report: Report) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(report)) + [UInt8(ascii: "\n")]
    }

    /// Reads a report written by this writer.
    public static func decode(_ bytes: [UInt8]) throws -> Report {
        try JSONDecoder().decode(Report.self, from: Data(bytes))
    }
}
