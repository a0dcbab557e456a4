import FoundationEssentials

/// The stall samples as a pprof profile (profile.proto, package perftools.profiles), encoded by
/// hand with ProtobufEncoder. The bytes are the uncompressed message: pprof files are gzipped on
/// disk, which the command line does (LagmonLinux's Gzip) when it writes them.
///
/// Two sample types, `samples/count` and `wall/nanoseconds` (samples × the sampling interval,
/// the default); one sample per call path of each stall, labelled with the stall's `stall` id,
/// its `thread` name and `tid`, so `pprof -tagfocus stall=3` shows one stall. Functions are the
/// call tree's nodes; each has one location, in a mapping named after its module.
public struct PprofWriter: ReportWriter {
    public init() {}

    public func render(_ report: Report) throws -> [UInt8] {
        var tables = Tables()
        let period = Int64(clamping: report.config.sampleIntervalNs)
        let samples = report.stalls.flatMap { stall in
            (stall.callTree?.selfPaths ?? []).map { path in
                Sample(
                    locations: path.steps.reversed().map { tables.location(of: $0) },
                    count: Int64(path.count), stall: stall)
            }
        }
        let types = [
            tables.string("samples"), tables.string("count"), tables.string("wall"), tables.string("nanoseconds"),
        ]
        let labelKeys = [tables.string("stall"), tables.string("thread"), tables.string("tid")]
        let comments = [
            tables.string("lagmon \(report.tool.version)"),
            tables.string("command: \(report.target.command.joined(separator: " "))"),
        ]
        let threadNames = samples.map { tables.string($0.stall.thread.name) }
        var profile = ProtobufEncoder()
        for (type, unit) in [(types[0], types[1]), (types[2], types[3])] {
            profile.message(1) { $0.valueType(type, unit) }
        }
        for (sample, threadName) in zip(samples, threadNames) {
            profile.message(2) { encoder in
                encoder.packedUInt64(1, sample.locations)
                let (wall, overflow) = sample.count.multipliedReportingOverflow(by: period)
                encoder.packedInt64(2, [sample.count, overflow ? .max : wall])
                encoder.message(3) { $0.label(key: labelKeys[0], num: Int64(sample.stall.id)) }
                encoder.message(3) { $0.label(key: labelKeys[1], str: threadName) }
                encoder.message(3) { $0.label(key: labelKeys[2], num: Int64(sample.stall.thread.tid)) }
            }
        }
        tables.encode(into: &profile)
        profile.int64(9, Self.epochNanoseconds(report.target.startedAt))
        profile.int64(10, Int64(clamping: report.target.wallNs))
        profile.message(11) { $0.valueType(types[2], types[3]) }
        profile.int64(12, period)
        profile.packedInt64(13, comments)
        profile.int64(14, types[2])
        return profile.bytes
    }

    /// `startedAt` (RFC 3339) as nanoseconds since the epoch; 0 when unreadable or out of range
    /// (a saved report can say anything).
    public static func epochNanoseconds(_ startedAt: String) -> Int64 {
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        guard let date = try? style.parse(startedAt),
            let milliseconds = Int64(exactly: (date.timeIntervalSince1970 * 1_000).rounded())
        else { return 0 }
        let (nanoseconds, overflow) = milliseconds.multipliedReportingOverflow(by: 1_000_000)
        return overflow ? 0 : nanoseconds
    }

    private struct Sample {
        var locations: [UInt64]
        var count: Int64
        var stall: StallReport
    }

    /// The string table, mappings, functions and locations, by first use; ids from 1.
    private struct Tables {
        var strings = [""]
        var stringIndex = ["": 0]
        var mappings: [String: UInt64] = [:]
        var functions: [CallPath.Step: UInt64] = [:]
        var order: [CallPath.Step] = []

        mutating func string(_ text: String) -> Int64 {
            if let index = stringIndex[text] { return Int64(index) }
            stringIndex[text] = strings.count
            strings.append(text)
            return Int64(strings.count - 1)
        }

        /// One function per step, and one location (same id) holding one line of it.
        mutating func location(of step: CallPath.Step) -> UInt64 {
            if let id = functions[step] { return id }
            let id = UInt64(order.count + 1)
            functions[step] = id
            order.append(step)
            _ = string(step.name)
            if mappings[step.module] == nil {
                mappings[step.module] = UInt64(mappings.count + 1)
                _ = string(step.module)
            }
            return id
        }

        func encode(into profile: inout ProtobufEncoder) {
            for (module, id) in mappings.sorted(by: { $0.value < $1.value }) {
                let filename = Int64(stringIndex[module] ?? 0)
                profile.message(3) { mapping in
                    mapping.uint64(1, id)
                    mapping.int64(5, filename)
                    mapping.bool(7, true)
                }
            }
            for (index, step) in order.enumerated() {
                let id = UInt64(index + 1)
                let mapping = mappings[step.module] ?? 0
                profile.message(4) { location in
                    location.uint64(1, id)
                    location.uint64(2, mapping)
                    location.message(4) { $0.uint64(1, id) }
                }
            }
            for (index, step) in order.enumerated() {
                let name = Int64(stringIndex[step.name] ?? 0)
                profile.message(5) { function in
                    function.uint64(1, UInt64(index + 1))
                    function.int64(2, name)
                    function.int64(3, name)
                }
            }
            for text in strings { profile.string(6, text) }
        }
    }
}

extension ProtobufEncoder {
    /// A `ValueType` message's fields.
    fileprivate mutating func valueType(_ type: Int64, _ unit: Int64) {
        int64(1, type)
        int64(2, unit)
    }

    /// A `Label` message's fields.
    fileprivate mutating func label(key: Int64, str: Int64 = 0, num: Int64 = 0) {
        int64(1, key)
        int64(2, str)
        int64(3, num)
    }
}
