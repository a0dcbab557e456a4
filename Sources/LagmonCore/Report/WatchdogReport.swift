/// How punctual lagmon's watchdog was. When it woke late, lagmon (or the machine) was slow,
/// not the target: stall timings come from the target's own clock and stay exact, but stalls
/// may have been noticed late.
public struct WatchdogReport: Codable, Sendable, Equatable {
    /// Timed wake-ups.
    public var wakeups: UInt64
    /// Wake-ups later than `toleranceNs` after their deadline.
    public var lateWakeups: UInt64
    /// The latest one, past its deadline.
    public var latenessMaxNs: UInt64
    /// 99th percentile of lateness.
    public var latenessP99Ns: UInt64
    /// Lateness above this counts as late.
    public var toleranceNs: UInt64
    /// Times the observer had to wake a parked watchdog.
    public var observerPosts: UInt64

    public init(
        wakeups: UInt64, lateWakeups: UInt64, latenessMaxNs: UInt64, latenessP99Ns: UInt64,
        toleranceNs: UInt64, observerPosts: UInt64
    ) {
        self.wakeups = wakeups
        self.lateWakeups = lateWakeups
        self.latenessMaxNs = latenessMaxNs
        self.latenessP99Ns = latenessP99Ns
        self.toleranceNs = toleranceNs
        self.observerPosts = observerPosts
    }
}
