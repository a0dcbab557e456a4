/// One point of a thread's CPU use over time: the interval that ended at `atNs`.
public struct CPUPoint: Codable, Sendable, Equatable {
    /// End of the interval, since the target started.
    public var atNs: UInt64
    /// CPU use over the interval (from the previous point's `atNs`, or the thread's first
    /// reading), in percent of one core.
    public var pct: Double

    public init(atNs: UInt64, pct: Double) {
        self.atNs = atNs
        self.pct = pct
    }
}
