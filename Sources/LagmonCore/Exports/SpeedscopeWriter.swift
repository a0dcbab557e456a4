import FoundationEssentials

/// The stall samples in speedscope's file format (https://www.speedscope.app/file-format-schema.json):
/// one sampled profile per loop thread, in nanoseconds. Each stall's samples sit under a root
/// frame naming the stall (`stall #2 +0.204s 221ms afterWaiting`), in the order the stalls
/// happened, and share the stall's duration between them, so speedscope's time-order view shows
/// every stall as long as it was, one after the other; a stall without samples is its root
/// frame alone. Frames are the call tree's nodes: the function, with its source `file` and a
/// `line` in it (the first listed sample's) when debug information gave them.
public struct SpeedscopeWriter: ReportWriter {
    /// The `$schema` speedscope recognises its files by.
    public static let schemaURL = "https://www.speedscope.app/file-format-schema.json"

    public init() {}

    public func render(_ report: Report) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(file(report))) + [UInt8(ascii: "\n")]
    }

    /// The speedscope document for `report`.
    func file(_ report: Report) -> File {
        var frames = FrameTable()
        let sources = Self.sources(report)
        let threads = Self.loopThreads(report)
        let profiles = threads.map { thread in
            profile(
                thread, stalls: report.stalls.filter { $0.thread.tid == thread.tid }, sources: sources,
                frames: &frames)
        }
        let command = report.target.command.first.map { PathText.lastComponent($0) } ?? "target"
        return File(
            schema: Self.schemaURL, shared: Shared(frames: frames.frames), profiles: profiles,
            name: "lagmon: \(command) (pid \(report.target.pid)) stalls", activeProfileIndex: 0,
            exporter: "lagmon \(report.tool.version)")
    }

    /// Loop threads in discovery order, then threads that only appear in stalls (by tid: a
    /// thread may have been renamed between the two).
    static func loopThreads(_ report: Report) -> [ThreadRef] {
        var threads: [ThreadRef] = []
        for thread in report.loops.map(\.thread) + report.stalls.map(\.thread)
        where !threads.contains(where: { $0.tid == thread.tid }) {
            threads.append(thread)
        }
        return threads
    }

    /// The source file and line of each call tree node, from the first listed frame naming it
    /// that has a file.
    static func sources(_ report: Report) -> [CallPath.Step: LagmonCore.Frame] {
        var sources: [CallPath.Step: LagmonCore.Frame] = [:]
        for frame in report.stalls.flatMap({ $0.stacks.flatMap(\.frames) }) where frame.file != nil {
            let step = CallPath.Step(name: frame.groupName, module: frame.module)
            if sources[step] == nil { sources[step] = frame }
        }
        return sources
    }

    private func profile(
        _ thread: ThreadRef, stalls: [StallReport], sources: [CallPath.Step: LagmonCore.Frame],
        frames: inout FrameTable
    ) -> Profile {
        var samples: [[Int]] = []
        var weights: [UInt64] = []
        for stall in stalls {
            let root = frames.index(of: Frame(name: stall.exportLabel))
            let paths = stall.callTree?.selfPaths ?? []
            let total = paths.reduce(0) { $0 + $1.count }
            guard total > 0 else {
                samples.append([root])
                weights.append(stall.durationNs)
                continue
            }
            let share = Self.shares(of: stall.durationNs, counts: paths.map(\.count))
            for (path, weight) in zip(paths, share) {
                samples.append(
                    [root]
                        + path.steps.map { step in
                            let source = sources[step]
                            return frames.index(of: Frame(name: step.name, file: source?.file, line: source?.line))
                        })
                weights.append(weight)
            }
        }
        return Profile(
            type: "sampled", name: "\(thread.exportLabel) stalls", unit: "nanoseconds", startValue: 0,
            endValue: weights.reduce(0, saturatingAdd), samples: samples, weights: weights)
    }

    /// `total` split in proportion to `counts`, exactly (the remainder goes to the first ones).
    /// Counts from a saved report can be anything: negative ones get nothing, nothing traps.
    public static func shares(of total: UInt64, counts: [Int]) -> [UInt64] {
        let weights = counts.map { UInt64(max($0, 0)) }
        let sum = weights.reduce(0, saturatingAdd)
        guard sum > 0 else { return counts.map { _ in 0 } }
        var shares = weights.map { weight in
            // weight <= sum, so neither the whole part nor the quotient overflows.
            let part = sum.dividingFullWidth((total % sum).multipliedFullWidth(by: weight)).quotient
            return total / sum * weight + part
        }
        var left = saturatingSubtract(total, shares.reduce(0, saturatingAdd))
        for index in shares.indices where left > 0 {
            shares[index] += 1
            left -= 1
        }
        return shares
    }

    /// Frames by first use.
    struct FrameTable {
        var frames: [Frame] = []
        var indices: [Frame: Int] = [:]

        mutating func index(of frame: Frame) -> Int {
            if let index = indices[frame] { return index }
            indices[frame] = frames.count
            frames.append(frame)
            return frames.count - 1
        }
    }

    struct File: Encodable {
        var schema: String
        var shared: Shared
        var profiles: [Profile]
        var name: String
        var activeProfileIndex: Int
        var exporter: String

        enum CodingKeys: String, CodingKey {
            case schema = "$schema"
            case shared, profiles, name, activeProfileIndex, exporter
        }
    }

    struct Shared: Encodable {
        var frames: [Frame]
    }

    struct Frame: Encodable, Hashable {
        var name: String
        var file: String?
        var line: Int?

        init(name: String, file: String? = nil, line: Int? = nil) {
            self.name = name
            self.file = file
            self.line = line
        }
    }

    struct Profile: Encodable {
        var type: String
        var name: String
        var unit: String
        var startValue: UInt64
        var endValue: UInt64
        var samples: [[Int]]
        var weights: [UInt64]
    }
}

extension String {
    /// Nil for the empty string.
    var nonEmpty: String? { isEmpty ? nil : self }
}
