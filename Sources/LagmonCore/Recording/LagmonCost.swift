/// lagmon's own resource use over a session, as measured by the session.
public struct LagmonCost: Sendable, Equatable {
    public var cpuNs: UInt64
    public var peakRssBytes: UInt64
    public var cpuSamplerPasses: UInt64
    public var cpuSamplerNsPerPass: UInt64
    /// The /proc probe's readings and the CPU time its thread used, when it ran.
    public var probeReadings: UInt64?
    public var probeCPUNs: UInt64?

    public init(cpuNs: UInt64, peakRssBytes: UInt64, cpuSamplerPasses: UInt64, cpuSamplerNsPerPass: UInt64) {
        self.cpuNs = cpuNs
        self.peakRssBytes = peakRssBytes
        self.cpuSamplerPasses = cpuSamplerPasses
        self.cpuSamplerNsPerPass = cpuSamplerNsPerPass
    }
}
