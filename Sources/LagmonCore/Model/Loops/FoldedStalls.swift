/// Stalls of one loop that `StallRetention` folded to keep a long session's memory bounded:
/// counted exactly, with their durations binned, but no longer kept one by one (no record, no
/// samples, not listed in the report).
public struct FoldedStalls: Sendable, Equatable {
    /// Stalls folded.
    public var count = 0
    /// Their summed duration, the longest, and their summed part beyond the threshold.
    public var totalNs: UInt64 = 0
    public var maxNs: UInt64 = 0
    public var blockingNs: UInt64 = 0
    /// Their durations: `LatencyBuckets` index → count.
    public var durationBuckets: [Int: UInt64] = [:]
    /// The durations of those the watchdog did not see while they lasted (only known after they
    /// ended), the same way: live metrics never counted them.
    public var unseenBuckets: [Int: UInt64] = [:]

    public init() {}

    /// Those the watchdog did not see while they lasted.
    public var unseenCount: Int { Int(unseenBuckets.values.reduce(0, saturatingAdd)) }

    /// Counts `record`, a stall of a loop whose threshold is `thresholdNs`.
    public mutating func add(_ record: StallRecord, thresholdNs: UInt64, seenLive: Bool) {
        let durationNs = saturatingSubtract(record.endNs, record.startNs)
        count += 1
        totalNs = saturatingAdd(totalNs, durationNs)
        maxNs = max(maxNs, durationNs)
        blockingNs = saturatingAdd(blockingNs, saturatingSubtract(durationNs, thresholdNs))
        durationBuckets[LatencyBuckets.index(of: durationNs), default: 0] += 1
        if !seenLive { unseenBuckets[LatencyBuckets.index(of: durationNs), default: 0] += 1 }
    }
}
