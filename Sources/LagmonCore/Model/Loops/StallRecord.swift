/// A stall as the in-target observer recorded it when the loop finally moved on.
public struct StallRecord: Sendable, Equatable {
    /// Entry into the stalling activity (channel clock).
    public var startNs: UInt64
    /// The next transition (channel clock).
    public var endNs: UInt64
    /// The activity it was stuck in.
    public var activity: LoopActivity
    /// Its number among the loop's stalls, from 1, when the recorder numbers them (a loop whose
    /// records `StallRetention` folds: the report's ids count the folded ones too).
    public var ordinal: Int?

    public init(startNs: UInt64, endNs: UInt64, activity: LoopActivity, ordinal: Int? = nil) {
        self.startNs = startNs
        self.endNs = endNs
        self.activity = activity
        self.ordinal = ordinal
    }
}
