import FoundationEssentials

/// The stall samples as a pprof profile (profile.proto, package perftools.profiles), encoded by
/// hand with ProtobufEncoder. The bytes are the uncompressed message: pprof files are gzipped on
/// disk, which the command line does (LagmonLinux's Gzip) when it writes them.
///
/// Two sample types: `samples/count`, the stack samples taken, and `wall/nanoseconds` (the
/// default), each stall's measured duration split over its samples in proportion to their counts
/// — the time model speedscope's weights share (docs/report.md, "Time in the exports"), so both
/// add up to the stalls' total duration. A stall without samples is one sample of 0 counts and its
/// whole duration at a `(no stack samples)` location.
///
/// One sample per distinct stack the report lists for each stall, labelled with the stall's
/// `stall` id, its `thread` name and `tid` (`pprof -tagfocus stall=3`); samples of the stacks a
/// stall does not list one by one (`stacksOmitted`) are one sample at a `(N stacks not listed)`
/// location. Every frame is a location at its runtime address, in the mapping (start, limit,
/// file offset, file, build id) of the report's `images` holding it, with its function (name,
/// source file) and source line when debug information gave them.
public struct PprofWriter: ReportWriter {
    public init() {}

    public func render(_ report: Report) throws -> [UInt8] {
        var tables = PprofTables(images: report.images ?? [])
        let samples = report.stalls.flatMap { Self.samples(of: $0, tables: &tables, defaultPid: report.target.pid) }
        let types = [
            tables.string("samples"), tables.string("count"), tables.string("wall"), tables.string("nanoseconds"),
        ]
        let labelKeys = [tables.string("stall"), tables.string("thread"), tables.string("tid")]
        let comments = [
            tables.string("lagmon \(report.tool.version)"),
            tables.string("command: \(report.target.command.joined(separator: " "))"),
            tables.string("wall/nanoseconds: each stall's duration split over its samples by count"),
        ]
        let threadNames = samples.map { tables.string($0.stall.thread.name) }
        var profile = ProtobufEncoder()
        for (type, unit) in [(types[0], types[1]), (types[2], types[3])] {
            profile.message(1) { $0.valueType(type, unit) }
        }
        for (sample, threadName) in zip(samples, threadNames) {
            profile.message(2) { encoder in
                encoder.packedUInt64(1, sample.locations)
                encoder.packedInt64(2, [sample.count, sample.wallNs])
                encoder.message(3) { $0.label(key: labelKeys[0], num: Int64(sample.stall.id)) }
                encoder.message(3) { $0.label(key: labelKeys[1], str: threadName) }
                encoder.message(3) { $0.label(key: labelKeys[2], num: Int64(sample.stall.thread.tid)) }
            }
        }
        tables.encode(into: &profile)
        profile.int64(9, Self.epochNanoseconds(report.target.startedAt))
        profile.int64(10, Int64(clamping: report.target.wallNs))
        profile.message(11) { $0.valueType(types[2], types[3]) }
        profile.int64(12, Int64(clamping: report.config.sampleIntervalNs))
        profile.packedInt64(13, comments)
        profile.int64(14, types[2])
        return profile.bytes
    }

    /// `startedAt` (RFC 3339) as nanoseconds since the epoch; 0 when unreadable or out of range
    /// (a saved report can say anything).
    public static func epochNanoseconds(_ startedAt: String) -> Int64 {
        let target = TargetInfo(
            command: [], pid: 0, exitStatus: nil, startedAt: startedAt, monotonicStartNs: 0, wallNs: 0)
        return Int64(clamping: target.startedAtUnixNs ?? 0)
    }

    /// One pprof sample: locations leaf first, its count and its share of the stall's duration.
    struct Sample {
        var locations: [UInt64]
        var count: Int64
        var wallNs: Int64
        var stall: StallReport
    }

    /// The samples of `stall`: its listed stacks, the rest of its samples, or its duration alone.
    static func samples(of stall: StallReport, tables: inout PprofTables, defaultPid: Int32) -> [Sample] {
        let pid = stall.pid ?? defaultPid
        var paths: [(locations: [UInt64], count: Int)] = stall.stacks.map { stack in
            (stack.frames.reversed().map { tables.location(of: $0, pid: pid) }, stack.count)
        }
        let rest = stall.samples - stall.stacks.reduce(0) { $0 + $1.count }
        if rest > 0 { paths.append(([tables.placeholder("(\(stall.stacksOmitted) stacks not listed)")], rest)) }
        guard !paths.isEmpty else {
            let location = tables.placeholder("(no stack samples)")
            return [Sample(locations: [location], count: 0, wallNs: Int64(clamping: stall.durationNs), stall: stall)]
        }
        let shares = SpeedscopeWriter.shares(of: stall.durationNs, counts: paths.map(\.count))
        return zip(paths, shares).map { path, share in
            Sample(locations: path.locations, count: Int64(path.count), wallNs: Int64(clamping: share), stall: stall)
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
