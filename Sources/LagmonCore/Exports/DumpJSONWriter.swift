import FoundationEssentials

/// `lagmon dump --json`: a `ProcessDump` as JSON (`lagmon-dump/1`, docs/dump.md), keys sorted.
public enum DumpJSONWriter {
    public static func render(_ dump: ProcessDump) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(dump)) + [UInt8(ascii: "\n")]
    }

    /// Reads a dump written by `render`.
    public static func decode(_ bytes: [UInt8]) throws -> ProcessDump {
        try JSONDecoder().decode(ProcessDump.self, from: Data(bytes))
    }
}
