import FoundationEssentials

/// The whole result of one lagmon session: what ran, how its loops behaved, which stalls
/// happened. Encoded as the versioned JSON report documented in docs/report.md.
public struct Report: Codable, Sendable, Equatable {
    /// The report format version; bumped only for incompatible changes.
    public static let currentSchemaVersion = 1

    /// Format version of this report.
    public var schemaVersion: Int
    /// The tool that wrote it.
    public var tool: ToolInfo
    /// The monitored process.
    public var target: TargetInfo
    /// The settings in force.
    public var config: RunConfig
    /// Headline numbers over all loops.
    public var summary: StallSummary
    /// One entry per observed loop.
    public var loops: [LoopReport]
    /// Every stall, ordered by start.
    public var stalls: [StallReport]
    /// The watchdog's own timeliness.
    public var watchdog: WatchdogReport
    /// Things the reader should know: missing observer, a late watchdog, lost records.
    public var diagnostics: [Diagnostic]
    /// Stalls grouped by the code they ran in, most total stall time first.
    public var fingerprints: [FingerprintReport]
    /// CPU use of the target's threads, by thread id (empty when CPU sampling was off).
    public var threads: [ThreadReport]
    /// How stack sampling went: its cost and the completeness of its stacks.
    public var sampling: SamplingReport
    /// How each budget (`--budget`, `--warn`, `--budget-file`) fared, in the order given;
    /// absent when the run had no budgets.
    public var budgets: [BudgetResult]?
    /// What watching cost lagmon (absent in reports re-rendered from older ones).
    public var overhead: OverheadReport?
    /// The target and, with `--follow-children`, each descendant lagmon watched (absent in
    /// reports of older lagmon builds).
    public var processes: [ProcessReport]?
    /// Which run and machine wrote the report (absent in reports of older lagmon builds and in
    /// reports re-rendered by `lagmon report`, which keeps what the saved one had).
    public var run: RunInfo?
    /// The executable mappings holding the sampled stacks' addresses, by process and start
    /// (absent in reports of older lagmon builds; empty without stacks).
    public var images: [ImageMapping]?
    /// Swift's cooperative thread pool, when the target ran jobs on it (absent otherwise).
    public var swiftPool: SwiftPoolReport?

    public init(
        tool: ToolInfo, target: TargetInfo, config: RunConfig, summary: StallSummary,
        loops: [LoopReport], stalls: [StallReport], watchdog: WatchdogReport, diagnostics: [Diagnostic],
        fingerprints: [FingerprintReport] = [], threads: [ThreadReport] = [],
        sampling: SamplingReport = SamplingReport(samples: [])
    ) {
        self.schemaVersion = Report.currentSchemaVersion
        self.tool = tool
        self.target = target
        self.config = config
        self.summary = summary
        self.loops = loops
        self.stalls = stalls
        self.watchdog = watchdog
        self.diagnostics = diagnostics
        self.fingerprints = fingerprints
        self.threads = threads
        self.sampling = sampling
    }
}

/// Name and version of the program that wrote a report.
public struct ToolInfo: Codable, Sendable, Equatable {
    /// Always `lagmon`.
    public var name: String
    /// lagmon's version.
    public var version: String

    public init(name: String = "lagmon", version: String) {
        self.name = name
        self.version = version
    }
}

/// The monitored process and how it ended.
public struct TargetInfo: Codable, Sendable, Equatable {
    /// The command line as given (argv).
    public var command: [String]
    /// Its process id.
    public var pid: Int32
    /// The status lagmon passed on: the exit code, or 128 + N when killed by signal N. Nil when
    /// lagmon attached to the process (`attached`): its status is not lagmon's to know.
    public var exitStatus: Int32?
    /// The signal that killed it, if one did.
    public var signal: Int32?
    /// That signal's name (`SIGSEGV`, …).
    public var signalName: String?
    /// When it started, ISO 8601 with milliseconds, UTC.
    public var startedAt: String
    /// CLOCK_MONOTONIC at start, to line stalls up with other tools' monotonic timestamps
    /// (a stall's absolute time is `monotonicStartNs + startNs`).
    public var monotonicStartNs: UInt64
    /// From start to exit.
    public var wallNs: UInt64

    /// `startedAt` as nanoseconds since the Unix epoch (millisecond precision); nil when
    /// `startedAt` does not parse.
    public var startedAtUnixNs: UInt64? {
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        // A saved report can say anything: a date past year 2554 does not fit, and is nil, not a trap.
        guard let date = try? style.parse(startedAt), date.timeIntervalSince1970 >= 0,
            let milliseconds = UInt64(exactly: (date.timeIntervalSince1970 * 1_000).rounded())
        else { return nil }
        let (nanoseconds, overflow) = milliseconds.multipliedReportingOverflow(by: 1_000_000)
        return overflow ? nil : nanoseconds
    }
    /// `true` when lagmon attached to the running process (`lagmon attach`) instead of starting
    /// it: `startedAt`, `monotonicStartNs` and `wallNs` then cover the session, not the
    /// process's life. Nil (absent) when lagmon started it.
    public var attached: Bool?
    /// For an attached process: whether it ended while lagmon watched it. Nil otherwise.
    public var exited: Bool?

    public init(
        command: [String], pid: Int32, exitStatus: Int32?, signal: Int32? = nil,
        signalName: String? = nil, startedAt: String, monotonicStartNs: UInt64, wallNs: UInt64
    ) {
        self.command = command
        self.pid = pid
        self.exitStatus = exitStatus
        self.signal = signal
        self.signalName = signalName
        self.startedAt = startedAt
        self.monotonicStartNs = monotonicStartNs
        self.wallNs = wallNs
    }
}

/// Settings that shaped the results.
public struct RunConfig: Codable, Sendable, Equatable {
    /// A loop awake in one activity longer than this is stalled.
    public var thresholdNs: UInt64
    /// Which loops were watched (`main`).
    public var loops: String
    /// Interval between stack samples of a stalled loop's thread.
    public var sampleIntervalNs: UInt64
    /// Interval between readings of every thread's CPU use.
    public var cpuIntervalNs: UInt64
    /// CPU use (percent of one core) above which a thread raises an alert.
    public var cpuAlertPct: Double
    /// Time between two /proc readings of a loop watched from outside (`lagmon attach`, static
    /// or setuid targets); nil when every loop was observed from inside.
    public var probeIntervalNs: UInt64?

    public init(
        thresholdNs: UInt64, loops: String = "main", sampleIntervalNs: UInt64 = SessionSettings.defaultSampleIntervalNs,
        cpuIntervalNs: UInt64 = SessionSettings.defaultCPUIntervalNs,
        cpuAlertPct: Double = SessionSettings.defaultCPUAlertPct
    ) {
        self.thresholdNs = thresholdNs
        self.loops = loops
        self.sampleIntervalNs = sampleIntervalNs
        self.cpuIntervalNs = cpuIntervalNs
        self.cpuAlertPct = cpuAlertPct
    }
}

/// Headline numbers a gate or dashboard reads first.
public struct StallSummary: Codable, Sendable, Equatable {
    /// Stalls over all loops.
    public var stallCount: Int
    /// The longest stall.
    public var longestStallNs: UInt64
    /// All stalls added up.
    public var totalStallNs: UInt64
    /// Sum over stalls of the part beyond the threshold (total blocking time).
    public var blockingNs: UInt64
    /// Median stall duration (nearest rank, over every stall; 0 without stalls).
    public var stallP50Ns: UInt64
    /// 90th percentile of stall durations.
    public var stallP90Ns: UInt64
    /// 99th percentile of stall durations.
    public var stallP99Ns: UInt64
    /// Stalls left out of `stalls[]` to bound the report (see `StallListing`); 0 normally.
    public var stallsOmitted: Int

    public init(stalls: [StallReport], thresholdNs: UInt64, listed: Int? = nil) {
        stallCount = stalls.count
        longestStallNs = stalls.map(\.durationNs).max() ?? 0
        totalStallNs = stalls.map(\.durationNs).reduce(0, saturatingAdd)
        blockingNs = stalls.map { saturatingSubtract($0.durationNs, thresholdNs) }.reduce(0, saturatingAdd)
        let durations = stalls.map(\.durationNs).sorted()
        func rank(_ percent: Double) -> UInt64 {
            guard !durations.isEmpty else { return 0 }
            let index = Int((percent / 100 * Double(durations.count)).rounded(.up)) - 1
            return durations[min(max(index, 0), durations.count - 1)]
        }
        stallP50Ns = rank(50)
        stallP90Ns = rank(90)
        stallP99Ns = rank(99)
        stallsOmitted = stalls.count - min(listed ?? stalls.count, stalls.count)
    }
}
