import Testing

@testable import LagmonCore

/// However many stalls a run has, the report lists a bounded number of them; what it sums up
/// (counts, totals, percentiles, budgets) still covers every stall.
struct StallListingTests {
    static let ms = Fixture.ms
    static let frame = Fixture.frame("ImageDecoder.decodeImage(_:)", offset: 0x40)

    /// Stall `id` starting at `id` seconds, `durationMs` long, with one stack.
    static func stall(_ id: Int, _ durationMs: UInt64) -> StallReport {
        var stall = Fixture.stall(id: id, startNs: UInt64(id) * Fixture.second, durationNs: durationMs * ms)
        stall.stacks = [StackCount(count: 2, frames: [frame])]
        stall.callTree = CallTreeNode(name: frame.symbol ?? "", module: frame.module, count: 2, children: [])
        return stall
    }

    @Test func fewStallsAreListedWhole() {
        let stalls = [Self.stall(1, 300), Self.stall(2, 150)]
        #expect(StallListing(maxListed: 3, maxWithStacks: 2).apply(to: stalls) == stalls)
    }

    @Test func theLongestAreListedInOrderOfStartAndOnlyTheLongestKeepStacks() {
        let stalls = [
            Self.stall(1, 150), Self.stall(2, 400), Self.stall(3, 120), Self.stall(4, 200), Self.stall(5, 300),
        ]
        let listed = StallListing(maxListed: 3, maxWithStacks: 1).apply(to: stalls)
        #expect(listed.map(\.id) == [2, 4, 5])
        #expect(listed.map(\.stacks.count) == [1, 0, 0])
        #expect(listed.map { $0.callTree != nil } == [true, false, false])
        #expect(listed.map(\.stacksOmitted) == [0, 1, 1])
    }

    @Test func equalDurationsKeepTheEarlierStall() {
        let stalls = [Self.stall(1, 200), Self.stall(2, 200), Self.stall(3, 200)]
        #expect(StallListing(maxListed: 2, maxWithStacks: 1).apply(to: stalls).map(\.id) == [1, 2])
    }

    @Test func limitsAreNeverNegativeAndStacksNeverExceedTheListed() {
        let listing = StallListing(maxListed: 2, maxWithStacks: 5)
        #expect(listing.maxWithStacks == 2)
        #expect(StallListing(maxListed: -1, maxWithStacks: -1).apply(to: [Self.stall(1, 200)]).isEmpty)
    }

    /// 1,500 stalls of 101…1600 ms: 1,000 listed, but the summary and the budget metrics are
    /// exact over all 1,500.
    @Test func aReportOfManyStallsCountsEveryOneExactly() throws {
        let spawn = Fixture.spawnNs
        let records = (1...1500).map { index in
            StallRecord(
                startNs: spawn + UInt64(index) * 2 * Fixture.second,
                endNs: spawn + UInt64(index) * 2 * Fixture.second + (100 + UInt64(index)) * Self.ms,
                activity: .afterWaiting)
        }
        let loop = Fixture.loop(tid: 100, stallRecords: records)
        let recording = Fixture.recording(loops: [loop], wallNs: 4_000 * Fixture.second)
        let report = ReportBuilder(toolVersion: "1").build(recording)
        #expect(report.stalls.count == 1000)
        #expect(report.stalls.first?.id == 501, "ids count every stall: the 500 shortest are left out")
        #expect(report.summary.stallCount == 1500)
        #expect(report.summary.stallsOmitted == 500)
        #expect(report.summary.longestStallNs == 1600 * Self.ms)
        #expect(report.summary.totalStallNs == (101...1600).reduce(0) { $0 + UInt64($1) } * Self.ms)
        // Nearest rank over all 1,500 durations (101 ms + rank - 1).
        #expect(report.summary.stallP50Ns == 850 * Self.ms)
        #expect(report.summary.stallP99Ns == 1585 * Self.ms)
        let metrics = ReportMetrics(report)
        #expect(metrics.read(.stallCount) == .value(1500))
        #expect(metrics.read(.stallPercentile(99)) == .value(Double(1585 * Self.ms)))
    }
}
