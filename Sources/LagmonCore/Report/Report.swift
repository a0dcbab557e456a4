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
    /// The workers of the target's tokio runtimes, when lagmon watched any (absent otherwise).
    public var tokioPool: SwiftPoolReport?
    /// StrictMode: the blocking calls watched loops' threads made, by loop, call and call site,
    /// most time first (absent with `--no-strict`, in `lagmon attach` and in older reports).
    public var blockingCalls: [BlockingCallReport]?
    /// StrictMode: blocking calls counted but not in `blockingCalls` (a loop made calls from
    /// more distinct sites than its table holds); absent when `blockingCalls` is.
    public var blockingCallsUnrecorded: UInt64?
    /// The CPU table's thread cap, when the target had more threads than lagmon read and
    /// `threads` leaves some out (absent otherwise).
    public var threadCap: ThreadCap?

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
