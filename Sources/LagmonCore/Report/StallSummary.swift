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

    public init(stalls: [StallReport], thresholdNs: UInt64, listed: Int? = nil) {
        stallCount = stalls.count
        longestStallNs = stalls.map(\.durationNs).max() ?? 0
        totalStallNs = stalls.map(\.durationNs).reduce(0, saturatingAdd)
        blockingNs = stalls.map { saturatingSubtract($0.durationNs, thresholdNs) }.reduce(0, saturatingAdd)
        let durations = stalls.map(\.durationNs).sorted()
        func rank(_ percent: Double) -> UInt64 {
            guard !durations.isEmpty else { return 0 }
            let index = Int((percent / 100 * Double(durations.count)).rounded(.up)) - 1
            return durations[min(max(index, 0), durations.count - 1)]
        }
        stallP50Ns = rank(50)
        stallP90Ns = rank(90)
        stallP99Ns = rank(99)
        stallsOmitted = stalls.count - min(listed ?? stalls.count, stalls.count)
    }
}
