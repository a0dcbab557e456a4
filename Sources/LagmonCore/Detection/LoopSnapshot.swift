/// One look at a loop's channel slot: its current activity and when it entered it.
public struct LoopSnapshot: Sendable, Equatable {
    /// The activity the observer last reported.
    public var activity: LoopActivity
    /// When the loop entered `activity`, in nanoseconds on the channel clock.
    public var sinceNs: UInt64

    public init(activity: LoopActivity, sinceNs: UInt64) {
        self.activity = activity
        self.sinceNs = sinceNs
    }
}
