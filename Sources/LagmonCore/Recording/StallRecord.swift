/// A stall as the in-target observer recorded it when the loop finally moved on.
public struct StallRecord: Sendable, Equatable {
    /// Entry into the stalling activity (channel clock).
    public var startNs: UInt64
    /// The next transition (channel clock).
    public var endNs: UInt64
    /// The activity it was stuck in.
    public var activity: LoopActivity

    public init(startNs: UInt64, endNs: UInt64, activity: LoopActivity) {
        self.startNs = startNs
        self.endNs = endNs
        self.activity = activity
    }
}
