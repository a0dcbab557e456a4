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
    /// True when blocking calls on loop threads were counted (StrictMode); absent otherwise.
    public var strict: Bool?

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
