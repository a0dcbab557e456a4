/// Keeps the report's size bounded however many stalls a run has: at most `maxListed` stalls are
/// listed (the longest ones, in order of start; ids keep counting every stall, so gaps show where
/// stalls were left out), and only the `maxWithStacks` longest keep their stacks, call tree and
/// sample timeline. Counts, totals and percentiles (`StallSummary`), fingerprints and loop
/// latency always cover every stall.
public struct StallListing: Sendable, Equatable {
    /// Most stalls listed in `stalls[]`.
    public var maxListed: Int
    /// Most listed stalls that keep `stacks`, `callTree` and `sampleTimeline`.
    public var maxWithStacks: Int

    public init(maxListed: Int = 1000, maxWithStacks: Int = 100) {
        self.maxListed = max(0, maxListed)
        self.maxWithStacks = max(0, min(maxWithStacks, maxListed))
    }

    /// The stalls to list, in order of start.
    public func apply(to stalls: [StallReport]) -> [StallReport] {
        guard stalls.count > maxWithStacks else { return stalls }
        // Longest first; among equals, the earlier first.
        let byLength = stalls.indices.sorted {
            (stalls[$0].durationNs, stalls[$1].startNs) > (stalls[$1].durationNs, stalls[$0].startNs)
        }
        let listed = Set(byLength.prefix(maxListed))
        let withStacks = Set(byLength.prefix(maxWithStacks))
        return stalls.indices.filter(listed.contains).map { index in
            var stall = stalls[index]
            if !withStacks.contains(index) {
                stall.stacksOmitted += stall.stacks.count
                stall.stacks = []
                stall.callTree = nil
                // Its nodes are gone with the tree.
                stall.sampleTimeline = []
            }
            return stall
        }
    }
}
