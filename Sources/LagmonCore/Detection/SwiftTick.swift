/// The period of lagmon's tick for Swift's cooperative pool (the clock pool jobs read instead of a
/// clock, docs/design/swift-concurrency.md) and the slack a ticked job's end allows, both from the
/// stall threshold: lagmon's channel sets them, its ticker keeps the period.
public enum SwiftTick {
    /// A fiftieth of the threshold (a stall's start at most 2 % of the threshold early), from
    /// 250 µs (at most 4,000 wake-ups a second) to 4 ms (the kernel's own coarse clock here).
    public static func periodNs(thresholdNs: UInt64) -> UInt64 {
        min(max(thresholdNs / 50, 250_000), 4_000_000)
    }

    /// Two periods, kept below the threshold, so that the probe's one comparison (tick length
    /// against the threshold less the slack) cannot wrap: a job that comes this close takes the
    /// exact clock at its end.
    public static func slackNs(thresholdNs: UInt64) -> UInt64 {
        min(2 * periodNs(thresholdNs: thresholdNs), thresholdNs / 2)
    }

    /// How early a pool stall's start may be, as lagmon's analyses allow for it: one period, and
    /// one more for a tick that came late (its lateness is counted in the watchdog's). The Swift
    /// pool's starvation analysis reads its all-blocked periods with this margin.
    public static func startToleranceNs(thresholdNs: UInt64) -> UInt64 {
        2 * periodNs(thresholdNs: thresholdNs)
    }
}
