/// Everything live metrics read from a session at one instant (a scrape, or the end): running
/// totals, never deltas, so a snapshot can be taken at any rate.
public struct LiveSnapshot: Sendable, Equatable {
    /// The watched process's name (comm), for the thread CPU series.
    public var processName: String
    /// Every loop watched so far.
    public var loops: [LiveLoopTotals]
    /// The target's threads' latest CPU readings, and the unit of their `cpuTicks`.
    public var threads: [ThreadCPUReading]
    public var cpuTicksPerSecond: UInt64
    /// Stack samples taken, and requested but lost.
    public var stackSamples: UInt64
    public var samplesLost: UInt64
    /// Whether the target is still running and watched.
    public var targetUp: Bool
    /// Times the watched process exited and was replaced by a new one lagmon attached to
    /// (`lagmon attach --name` or `--pid-file`).
    public var restarts: UInt64
    /// lagmon's own CPU time (user + system) and resident memory.
    public var ownCPUNs: UInt64
    public var ownRSSBytes: UInt64

    public init(
        processName: String, loops: [LiveLoopTotals] = [], threads: [ThreadCPUReading] = [],
        cpuTicksPerSecond: UInt64 = 1_000_000_000, stackSamples: UInt64 = 0, samplesLost: UInt64 = 0,
        targetUp: Bool, ownCPUNs: UInt64 = 0, ownRSSBytes: UInt64 = 0, restarts: UInt64 = 0
    ) {
        self.processName = processName
        self.loops = loops
        self.threads = threads
        self.cpuTicksPerSecond = cpuTicksPerSecond
        self.stackSamples = stackSamples
        self.samplesLost = samplesLost
        self.targetUp = targetUp
        self.ownCPUNs = ownCPUNs
        self.ownRSSBytes = ownRSSBytes
        self.restarts = restarts
    }
}
