/// A busy period of a loop longer than the stall threshold: the loop awake from a wake-up to its
/// next sleep for that long, whether one activity held it (a stall) or many short passes did.
public struct LongIteration: Codable, Sendable, Equatable {
    /// When the loop woke, since the target started (the observer's timestamp).
    public var startNs: UInt64
    /// How long it stayed awake.
    public var durationNs: UInt64
    /// Whether the end is the observer's exact timestamp of the loop going to sleep. False: the
    /// watchdog found the loop already awake again (or the program gone), and the end is the
    /// earliest instant known to be after it, at most one watchdog look (`config.sampleIntervalNs`)
    /// late.
    public var endSeen: Bool

    public init(startNs: UInt64, durationNs: UInt64, endSeen: Bool) {
        self.startNs = startNs
        self.durationNs = durationNs
        self.endSeen = endSeen
    }
}
