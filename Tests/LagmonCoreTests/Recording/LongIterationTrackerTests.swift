import LagmonCore
import Testing

/// The watchdog's looks at a loop, driven by hand: threshold 100, looks every 25.
struct LongIterationTrackerTests {
    var tracker = LongIterationTracker(thresholdNs: 100, pollNs: 25)
    let awake = LoopSnapshot(activity: .afterWaiting, sinceNs: 1_000)

    @Test mutating func aLongPeriodSeenToSleepIsExact() {
        // Woke at 1000: look again just past the threshold, then every poll.
        #expect(tracker.observe(busySinceNs: 1_000, snapshot: awake, nowNs: 1_010) == 1_101)
        #expect(tracker.observe(busySinceNs: 1_000, snapshot: awake, nowNs: 1_101) == 1_126)
        let asleep = LoopSnapshot(activity: .beforeWaiting, sinceNs: 1_120)
        #expect(tracker.observe(busySinceNs: nil, snapshot: asleep, nowNs: 1_126) == nil)
        #expect(tracker.records == [LongIterationRecord(startNs: 1_000, endNs: 1_120, endSeen: true)])
    }

    @Test mutating func aLongPeriodEndedByTheNextWakeUpIsBoundedByIt() {
        _ = tracker.observe(busySinceNs: 1_000, snapshot: awake, nowNs: 1_101)
        let again = LoopSnapshot(activity: .afterWaiting, sinceNs: 1_130)
        #expect(tracker.observe(busySinceNs: 1_130, snapshot: again, nowNs: 1_140) == 1_231)
        #expect(tracker.records == [LongIterationRecord(startNs: 1_000, endNs: 1_130, endSeen: false)])
    }

    @Test mutating func shortPeriodsAreNotRecorded() {
        _ = tracker.observe(busySinceNs: 1_000, snapshot: awake, nowNs: 1_010)
        // Seen asleep: 50 long.
        _ = tracker.observe(
            busySinceNs: nil, snapshot: LoopSnapshot(activity: .beforeWaiting, sinceNs: 1_050), nowNs: 1_101)
        // Not seen asleep and never seen past the threshold: unknown, so not recorded.
        _ = tracker.observe(busySinceNs: 2_000, snapshot: awake, nowNs: 2_010)
        _ = tracker.observe(busySinceNs: 2_300, snapshot: awake, nowNs: 2_310)
        #expect(tracker.records.isEmpty)
    }

    @Test mutating func aPeriodOpenAtTheEndEndsThereAndRecordsAreCapped() {
        var capped = LongIterationTracker(thresholdNs: 100, pollNs: 25, maxRecords: 1)
        for start: UInt64 in [1_000, 2_000, 3_000] {
            _ = capped.observe(busySinceNs: start, snapshot: awake, nowNs: start + 150)
            _ = capped.observe(
                busySinceNs: nil, snapshot: LoopSnapshot(activity: .beforeWaiting, sinceNs: start + 160),
                nowNs: start + 170)
        }
        #expect(capped.records.count == 1 && capped.omitted == 2)
        _ = tracker.observe(busySinceNs: 5_000, snapshot: awake, nowNs: 5_050)
        tracker.finish(atNs: 5_300)
        #expect(tracker.records == [LongIterationRecord(startNs: 5_000, endNs: 5_300, endSeen: false)])
    }
}
