/// User plus system CPU of one thread, as a percentage of one core.
public struct ThreadCPU: Codable, Sendable, Equatable {
    /// Average over the intervals the thread was seen in.
    public var avgPct: Double
    /// The busiest interval.
    public var maxPct: Double
    /// Total CPU time consumed while observed.
    public var totalNs: UInt64

    public init(avgPct: Double, maxPct: Double, totalNs: UInt64) {
        self.avgPct = avgPct
        self.maxPct = maxPct
        self.totalNs = totalNs
    }
}
