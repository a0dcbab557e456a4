import Testing

@testable import LagmonCore

/// What a hostile target can write into a slot, and what lagmon keeps of it.
struct LoopRecordingPlausibleTests {
    static let ms: UInt64 = 1_000_000

    static func loop(claimedNs: UInt64 = 100 * ms) -> LoopRecording {
        LoopRecording(
            thread: ThreadRef(tid: 7, name: "main"), pid: 7, observer: "waitcall", claimedNs: claimedNs, passes: 10,
            transitions: 20, busyCount: 10, busyTotalNs: 50 * ms, busyMaxNs: 20 * ms, busyBuckets: [300: 10],
            openBusySinceNs: nil, lastSnapshot: LoopSnapshot(activity: .beforeWaiting, sinceNs: 900 * ms),
            stallRecords: [StallRecord(startNs: 200 * ms, endNs: 450 * ms, activity: .afterWaiting)],
            stallRecordsLost: 0, liveStallNoticedNs: [:])
    }

    @Test func anHonestLoopIsKeptAsItIs() {
        let honest = Self.loop()
        let checked = honest.plausible(untilNs: 1_000 * Self.ms)
        #expect(checked.rejected == 0)
        #expect(checked.loop == honest)
    }

    @Test func stallsOutsideTheObservedSpanOrBackwardsAreDropped() {
        var hostile = Self.loop()
        hostile.stallRecords += [
            StallRecord(startNs: 500 * Self.ms, endNs: 400 * Self.ms, activity: .afterWaiting),
            StallRecord(startNs: 0, endNs: 300 * Self.ms, activity: .afterWaiting),
            StallRecord(startNs: 300 * Self.ms, endNs: .max, activity: .afterWaiting),
            StallRecord(startNs: .max - 1, endNs: .max, activity: .beforeSources),
        ]
        let checked = hostile.plausible(untilNs: 1_000 * Self.ms)
        #expect(checked.rejected == 4)
        #expect(checked.loop.stallRecords == Self.loop().stallRecords)
    }

    @Test func anEndJustPastTheSessionIsTheClocksSlackAndIsClamped() {
        var loop = Self.loop()
        loop.stallRecords = [
            StallRecord(startNs: 800 * Self.ms, endNs: 1_000 * Self.ms + 500_000, activity: .afterWaiting)
        ]
        let checked = loop.plausible(untilNs: 1_000 * Self.ms)
        #expect(checked.rejected == 0)
        #expect(checked.loop.stallRecords.first?.endNs == 1_000 * Self.ms)
    }

    @Test func countsAndTotalsBeyondTheSpanAreClamped() {
        var hostile = Self.loop()
        hostile.busyCount = .max
        hostile.transitions = .max
        hostile.passes = .max
        hostile.stallRecordsLost = .max
        hostile.busyTotalNs = .max
        hostile.busyMaxNs = .max
        hostile.busyBuckets = [300: .max, 301: .max]
        hostile.openBusySinceNs = .max
        hostile.lastSnapshot = LoopSnapshot(activity: .afterWaiting, sinceNs: 1 << 55)
        let checked = hostile.plausible(untilNs: 1_000 * Self.ms)
        let spanNs = 900 * Self.ms
        #expect(checked.loop.busyCount == spanNs)
        #expect(checked.loop.transitions == spanNs)
        #expect(checked.loop.stallRecordsLost == spanNs)
        #expect(checked.loop.busyTotalNs == spanNs)
        #expect(checked.loop.busyMaxNs == spanNs)
        #expect(checked.loop.busyBuckets.isEmpty, "the histogram's counts overflow: it is dropped")
        #expect(checked.loop.openBusySinceNs == nil)
        #expect(checked.loop.lastSnapshot.activity == .none)
        #expect(checked.rejected == 9)
    }

    @Test func aClaimInTheFutureIsMovedToTheEnd() {
        let checked = Self.loop(claimedNs: .max).plausible(untilNs: 1_000 * Self.ms)
        #expect(checked.loop.claimedNs == 1_000 * Self.ms)
        #expect(checked.loop.stallRecords.isEmpty)
        #expect(checked.rejected >= 2)
    }

    @Test func aHostileLoopBuildsAReportWithoutTrapping() {
        var hostile = Self.loop()
        hostile.stallRecords = (0..<8).map { _ in
            StallRecord(startNs: 100 * Self.ms, endNs: 1_000 * Self.ms, activity: .afterWaiting)
        }
        hostile.busyBuckets = [LatencyBuckets.count - 1: 3]
        hostile.busyCount = .max
        let checked = hostile.plausible(untilNs: 1_000 * Self.ms).loop
        let recording = SessionRecording(
            command: ["x"], pid: 7, startedAt: "2026-01-01T00:00:00Z", spawnNs: 0, endNs: 1_000 * Self.ms,
            exit: .exited(0), thresholdNs: 100 * Self.ms, loops: [checked], probe: ProbeStatus(),
            lateness: LatenessTally(toleranceNs: 2 * Self.ms))
        let report = ReportBuilder(toolVersion: "test").build(recording)
        #expect(report.summary.stallCount == 8)
        #expect(report.summary.totalStallNs == 8 * 900 * Self.ms)
    }

    @Test func stallSummariesSaturateInsteadOfTrapping() {
        let huge = StallReport(
            id: 1, thread: ThreadRef(tid: 1, name: "m"), startNs: 0, durationNs: .max, activity: .afterWaiting,
            ongoingAtExit: false, seenLive: false)
        let summary = StallSummary(stalls: [huge, huge], thresholdNs: 1)
        #expect(summary.totalStallNs == .max)
        #expect(summary.blockingNs == .max)
    }
}
