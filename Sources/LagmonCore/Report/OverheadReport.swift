/// What watching cost lagmon itself (its own process, not the target's), so the monitor's
/// price is in the report next to what it found.
public struct OverheadReport: Codable, Sendable, Equatable {
    /// lagmon's own user + system CPU time over the session.
    public var cpuNs: UInt64
    /// That as a percentage of one core over the target's wall time.
    public var cpuPct: Double
    /// lagmon's peak resident set size.
    public var peakRssBytes: UInt64
    /// Per-thread CPU readings taken (passes over /proc/<pid>/task).
    public var cpuSamplerPasses: UInt64
    /// CPU time one such pass cost on average.
    public var cpuSamplerNsPerPass: UInt64
    /// Readings of a loop thread's /proc files by the /proc probe (`lagmon attach`, static or
    /// setuid targets); nil (absent) without it.
    public var probeReadings: UInt64?
    /// CPU time the /proc probe's thread spent per reading on average, its sleeps' wake-ups
    /// included; nil (absent) without it.
    public var probeNsPerReading: UInt64?

    public init(
        cpuNs: UInt64, wallNs: UInt64, peakRssBytes: UInt64, cpuSamplerPasses: UInt64, cpuSamplerNsPerPass: UInt64
    ) {
        self.cpuNs = cpuNs
        self.cpuPct = wallNs == 0 ? 0 : Double(cpuNs) / Double(wallNs) * 100
        self.peakRssBytes = peakRssBytes
        self.cpuSamplerPasses = cpuSamplerPasses
        self.cpuSamplerNsPerPass = cpuSamplerNsPerPass
    }
}
