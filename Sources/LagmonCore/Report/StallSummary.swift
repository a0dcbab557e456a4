/// Headline numbers a gate or dashboard reads first.
public struct StallSummary: Codable, Sendable, Equatable {
    /// Stalls over all loops.
    public var stallCount: Int
    /// The longest stall.
    public var longestStallNs: UInt64
    /// All stalls added up.
    public var totalStallNs: UInt64
    /// Sum over stalls of the part beyond the threshold (total blocking time).
    public var blockingNs: UInt64
    /// Median stall duration (nearest rank, over every stall; 0 without stalls).
    public var stallP50Ns: UInt64
    /// 90th percentile of stall durations.
    public var stallP90Ns: UInt64
    /// 99th percentile of stall durations.
    public var stallP99Ns: UInt64
    /// Stalls left out of `stalls[]` to bound the report (see `StallListing`); 0 normally.
    public var stallsOmitted: Int

    /// The summary of `stalls` and of the stalls `folded` (`StallRetention`): counts, totals
    /// and the longest stay exact; percentiles are exact over the stalls kept and read the folded
    /// ones at their duration bucket's middle (within 0.4 % of their duration).
    public init(stalls: [StallReport], thresholdNs: UInt64, listed: Int? = nil, folded: [FoldedStalls] = []) {
        let foldedCount = folded.reduce(0) { $0 + $1.count }
        stallCount = stalls.count + foldedCount
        longestStallNs = max(stalls.map(\.durationNs).max() ?? 0, folded.map(\.maxNs).max() ?? 0)
        totalStallNs = stalls.map(\.durationNs).reduce(folded.map(\.totalNs).reduce(0, saturatingAdd), saturatingAdd)
        blockingNs = stalls.map { saturatingSubtract($0.durationNs, thresholdNs) }.reduce(
            folded.map(\.blockingNs).reduce(0, saturatingAdd), saturatingAdd)
        let durations = Self.durations(stalls, folded: folded)
        let total = stallCount
        func rank(_ percent: Double) -> UInt64 {
            guard total > 0 else { return 0 }
            let index = min(max(Int((percent / 100 * Double(total)).rounded(.up)) - 1, 0), total - 1)
            var seen = 0
            for (value, count) in durations {
                seen += count
                if index < seen { return value }
            }
            return durations.last?.value ?? 0
        }
        stallP50Ns = rank(50)
        stallP90Ns = rank(90)
        stallP99Ns = rank(99)
        stallsOmitted = stallCount - min(listed ?? stallCount, stallCount)
    }

    /// Every duration with its count, shortest first: the kept stalls' exact ones, the folded
    /// stalls' bucket middles.
    private static func durations(_ stalls: [StallReport], folded: [FoldedStalls]) -> [(value: UInt64, count: Int)] {
        var counts: [UInt64: Int] = [:]
        for stall in stalls { counts[stall.durationNs, default: 0] += 1 }
        for part in folded {
            for (index, count) in part.durationBuckets {
                counts[min(LatencyBuckets.representative(of: index), part.maxNs), default: 0] += Int(count)
            }
        }
        return counts.sorted { $0.key < $1.key }.map { (value: $0.key, count: $0.value) }
    }
}
