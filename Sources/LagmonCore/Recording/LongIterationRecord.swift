/// A long busy period as the watchdog followed it (channel clock).
public struct LongIterationRecord: Sendable, Equatable {
    /// The wake-up that opened it.
    public var startNs: UInt64
    /// Its end, exact when `endSeen`, otherwise an upper bound.
    public var endNs: UInt64
    /// Whether `endNs` is the observer's timestamp of the loop going to sleep.
    public var endSeen: Bool

    public init(startNs: UInt64, endNs: UInt64, endSeen: Bool) {
        self.startNs = startNs
        self.endNs = endNs
        self.endSeen = endSeen
    }
}
