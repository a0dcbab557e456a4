/// Bounds how many stall records a long session keeps in full, whatever the number of stalls:
/// the first `firstCount` stalls and the `longestCount` longest stay (with their samples: they
/// are the ones a report lists), every other stall is folded into `FoldedStalls`, which keeps
/// counts, totals and a duration histogram exact.
///
/// Folding runs when the records reach `firstCount + 2 × longestCount`, so its cost (a sort of
/// the records) is paid once per `longestCount` stalls.
public struct StallRetention: Sendable, Equatable {
    /// The earliest stalls, kept whatever their length.
    public var firstCount: Int
    /// The longest stalls kept besides those.
    public var longestCount: Int
    /// Stack samples kept of one stall at most, spread evenly over it (`SampleThinning`): the
    /// stalls kept are the longest, so without a bound their samples grow with the longest
    /// stall seen (one of 10 s sampled every 10 ms holds 1000). With 32, the 2100 stalls held at
    /// most before a fold hold at most 67,200 samples.
    public var samplesPerStall: Int

    /// The report lists at most 1000 stalls (`StallListing`): those are the longest.
    public init(firstCount: Int = 100, longestCount: Int = 1000, samplesPerStall: Int = 32) {
        self.firstCount = max(0, firstCount)
        self.longestCount = max(1, longestCount)
        self.samplesPerStall = max(2, samplesPerStall)
    }

    /// Records held before a fold.
    public var foldAt: Int { firstCount + 2 * longestCount }

    /// Folds `records` (oldest first, numbered by `ordinal`) down to the first and the longest
    /// when there are `foldAt` of them; `seenLive` tells the stalls the watchdog saw while they
    /// lasted. Returns the starts of the stalls folded (their samples can go).
    public func fold(
        _ records: inout [StallRecord], into folded: inout FoldedStalls, thresholdNs: UInt64,
        seenLive: (UInt64) -> Bool
    ) -> [UInt64] {
        guard records.count >= foldAt else { return [] }
        let first = records.prefix { ($0.ordinal ?? Int.max) <= firstCount }.count
        let rest = records.indices.dropFirst(first)
        // Longest first; among equals, the earlier first (as `StallListing` picks).
        let longest = rest.sorted { a, b in
            let (lengthA, lengthB) = (records[a].endNs &- records[a].startNs, records[b].endNs &- records[b].startNs)
            return lengthA != lengthB ? lengthA > lengthB : a < b
        }
        let keep = Set(longest.prefix(longestCount))
        var kept: [StallRecord] = []
        var starts: [UInt64] = []
        kept.reserveCapacity(first + longestCount)
        for index in records.indices {
            if index < first || keep.contains(index) {
                kept.append(records[index])
            } else {
                folded.add(records[index], thresholdNs: thresholdNs, seenLive: seenLive(records[index].startNs))
                starts.append(records[index].startNs)
            }
        }
        records = kept
        return starts
    }
}
