/// One stall: a loop awake in one activity, without a transition, longer than the threshold.
public struct StallReport: Codable, Sendable, Equatable {
    /// 1-based, in order of start.
    public var id: Int
    /// The loop's thread.
    public var thread: ThreadRef
    /// When the loop entered the stalling activity, since the target started.
    public var startNs: UInt64
    /// How long it stayed there.
    public var durationNs: UInt64
    /// `beforeSources` or `afterWaiting`.
    public var activity: String
    /// The target ended while the loop was still stuck; the duration runs to its exit.
    public var ongoingAtExit: Bool
    /// Whether lagmon's watchdog saw the stall while it happened (false: known only from the
    /// observer's record, for example because the watchdog itself was delayed).
    public var seenLive: Bool

    public init(
        id: Int, thread: ThreadRef, startNs: UInt64, durationNs: UInt64, activity: LoopActivity,
        ongoingAtExit: Bool, seenLive: Bool
    ) {
        self.id = id
        self.thread = thread
        self.startNs = startNs
        self.durationNs = durationNs
        self.activity = activity.name
        self.ongoingAtExit = ongoingAtExit
        self.seenLive = seenLive
    }
}
