import Histogram

/// Counts how late the watchdog woke relative to the deadlines it set itself.
public struct LatenessTally: Sendable, Equatable {
    /// Lateness above this counts as a late wake-up.
    public let toleranceNs: UInt64
    /// Timed wake-ups recorded.
    public private(set) var wakeups: UInt64 = 0
    /// Wake-ups later than the tolerance.
    public private(set) var lateWakeups: UInt64 = 0
    /// Observer posts that woke a parked watchdog (the target's own count: any value).
    public var observerPosts: UInt64 = 0
    /// The latest wake-up past its deadline (exact).
    public private(set) var maxNs: UInt64 = 0
    private var histogram = Histogram<UInt64>(
        highestTrackableValue: 3_600_000_000_000, numberOfSignificantValueDigits: .two)

    public init(toleranceNs: UInt64) {
        self.toleranceNs = toleranceNs
    }

    /// Records one wake-up that was due at `deadlineNs` and happened at `wokeNs`.
    public mutating func record(deadlineNs: UInt64, wokeNs: UInt64) {
        let lateNs = wokeNs > deadlineNs ? wokeNs - deadlineNs : 0
        wakeups += 1
        if lateNs > toleranceNs { lateWakeups += 1 }
        maxNs = max(maxNs, lateNs)
        _ = histogram.record(min(lateNs, 3_600_000_000_000))
    }

    /// Adds another tally (several watchdogs, one report).
    public mutating func merge(_ other: LatenessTally) {
        wakeups += other.wakeups
        lateWakeups += other.lateWakeups
        // Saturating: the observers' counts are whatever the target wrote into the channel.
        observerPosts = saturatingAdd(observerPosts, other.observerPosts)
        maxNs = max(maxNs, other.maxNs)
        histogram.add(other.histogram)
    }

    /// 99th percentile lateness.
    public var p99Ns: UInt64 { wakeups == 0 ? 0 : min(histogram.valueAtPercentile(99), maxNs) }

    public static func == (lhs: LatenessTally, rhs: LatenessTally) -> Bool {
        lhs.toleranceNs == rhs.toleranceNs && lhs.wakeups == rhs.wakeups
            && lhs.lateWakeups == rhs.lateWakeups && lhs.maxNs == rhs.maxNs
            && lhs.observerPosts == rhs.observerPosts
    }
}
