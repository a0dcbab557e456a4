/// How one session watches, whether it started its target (`lagmon run`) or attached to it
/// (`lagmon attach`): built once from the command line, read by the watchdogs, the /proc probe,
/// the samplers and the recording. The defaults are lagmon's, defined here only.
public struct SessionSettings: Sendable, Equatable {
    /// The default stall threshold: 100 ms.
    public static let defaultThresholdNs: UInt64 = 100_000_000
    /// The default time between stack samples of a stalled loop: 10 ms.
    public static let defaultSampleIntervalNs: UInt64 = 10_000_000
    /// The default time between per-thread CPU readings: 250 ms.
    public static let defaultCPUIntervalNs: UInt64 = 250_000_000
    /// The default CPU alert level, % of one core.
    public static let defaultCPUAlertPct: Double = 70
    /// The default lateness past which a watchdog wake-up or a /proc reading counts as late: 2 ms.
    public static let defaultLatenessToleranceNs: UInt64 = 2_000_000

    /// A loop awake in one activity longer than this is stalled.
    public var thresholdNs: UInt64
    /// Time between stack samples (and watchdog looks) while a loop is stalled.
    public var sampleIntervalNs: UInt64
    /// Whether stalled loops' stacks are sampled (ptrace).
    public var stacks: Bool
    /// Time between per-thread CPU readings; nil turns CPU reading off.
    public var cpuIntervalNs: UInt64?
    /// CPU percentage a thread must stay at or above to raise an alert; nil: no alerts.
    public var cpuAlertPct: Double?
    /// Watchdog wake-ups and /proc readings later than this count as late.
    public var latenessToleranceNs: UInt64

    public init(
        thresholdNs: UInt64 = defaultThresholdNs, sampleIntervalNs: UInt64 = defaultSampleIntervalNs,
        stacks: Bool = true, cpuIntervalNs: UInt64? = defaultCPUIntervalNs, cpuAlertPct: Double? = defaultCPUAlertPct,
        latenessToleranceNs: UInt64 = defaultLatenessToleranceNs
    ) {
        self.thresholdNs = thresholdNs
        self.sampleIntervalNs = sampleIntervalNs
        self.stacks = stacks
        self.cpuIntervalNs = cpuIntervalNs
        self.cpuAlertPct = cpuAlertPct
        self.latenessToleranceNs = latenessToleranceNs
    }
}
