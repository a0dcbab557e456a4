import Testing

@testable import LagmonCore

/// The tracker driven with a manual clock: 100 ticks per second, passes every 100 ms, so one
/// tick in an interval is 10 %.
struct ThreadCPUTrackerTests {
    static let ms: UInt64 = 1_000_000
    static let start: UInt64 = 1_000 * ms
    static let interval: UInt64 = 100 * ms

    static func tracker(
        alertPct: Double? = 70, sustain: Int = 2, cooldownNs: UInt64 = 5_000 * ms
    ) -> ThreadCPUTracker {
        ThreadCPUTracker(
            configuration: .init(
                ticksPerSecond: 100, targetStartNs: start, alertPct: alertPct, sustainIntervals: sustain,
                alertCooldownNs: cooldownNs))
    }

    static func reading(_ tid: Int32, _ ticks: UInt64, name: String? = nil, state: SchedulerState = .running)
        -> ThreadCPUReading
    {
        ThreadCPUReading(tid: tid, name: name ?? "t\(tid)", state: state, cpuTicks: ticks)
    }

    /// Feeds passes `interval` apart starting at `start`; each pass is a list of (tid, ticks).
    /// Returns the alerts per pass.
    @discardableResult
    static func feed(_ tracker: inout ThreadCPUTracker, _ passes: [[(Int32, UInt64)]], from: UInt64 = start)
        -> [[CPUAlertEvent]]
    {
        passes.enumerated().map { index, pass in
            tracker.record(pass.map { reading($0.0, $0.1) }, atNs: from + UInt64(index) * interval)
        }
    }

    static func report(_ tracker: ThreadCPUTracker, _ tid: Int32) -> ThreadReport? {
        tracker.reports().first { $0.tid == tid }
    }

    // MARK: Percentages

    @Test func firstReadingIsOnlyAStartingPoint() {
        var tracker = Self.tracker()
        Self.feed(&tracker, [[(7, 5_000)]])
        #expect(
            tracker.reports() == [
                ThreadReport(
                    tid: 7, name: "t7", state: "R", cpu: ThreadCPU(avgPct: 0, maxPct: 0, totalNs: 0), alerts: [])
            ])
    }

    @Test func percentOfOneCorePerIntervalAverageAndMaximum() {
        var tracker = Self.tracker(alertPct: nil)
        // +5, +2, +8 ticks per 100 ms: 50 %, 20 %, 80 %.
        Self.feed(&tracker, [[(7, 100)], [(7, 105)], [(7, 107)], [(7, 115)]])
        let cpu = Self.report(tracker, 7)?.cpu
        #expect(cpu?.maxPct == 80)
        #expect(cpu?.avgPct == 50)
        #expect(cpu?.totalNs == 150 * Self.ms)
    }

    @Test func moreThanOneCoreIsNotClamped() {
        // A kernel thread's ticks can land late: 12 ticks in 100 ms is reported as such.
        var tracker = Self.tracker(alertPct: nil)
        Self.feed(&tracker, [[(7, 0)], [(7, 12)]])
        #expect(Self.report(tracker, 7)?.cpu.maxPct == 120)
    }

    @Test func averageWeighsIntervalsByTheirLength() {
        var tracker = Self.tracker(alertPct: nil)
        // 100 % over 100 ms, then 0 % over 300 ms (the thread was missing from two passes).
        _ = tracker.record([Self.reading(7, 0)], atNs: Self.start)
        _ = tracker.record([Self.reading(7, 10)], atNs: Self.start + 100 * Self.ms)
        _ = tracker.record([Self.reading(7, 10)], atNs: Self.start + 400 * Self.ms)
        let cpu = Self.report(tracker, 7)?.cpu
        #expect(cpu?.avgPct == 25)
        #expect(cpu?.maxPct == 100)
        #expect(cpu?.totalNs == 100 * Self.ms)
    }

    @Test func nameAndStateAreTheLastSeen() {
        var tracker = Self.tracker()
        _ = tracker.record([Self.reading(7, 0, name: "before", state: .running)], atNs: Self.start)
        _ = tracker.record([Self.reading(7, 1, name: "after", state: .diskSleep)], atNs: Self.start + Self.interval)
        #expect(Self.report(tracker, 7)?.name == "after")
        #expect(Self.report(tracker, 7)?.state == "D")
    }

    // MARK: Threads coming and going

    @Test func vanishedThreadsKeepTheirSummary() {
        var tracker = Self.tracker(alertPct: nil)
        Self.feed(&tracker, [[(7, 0), (8, 0)], [(7, 3), (8, 6)], [(7, 6)], [(7, 9)]])
        #expect(Self.report(tracker, 8)?.cpu == ThreadCPU(avgPct: 60, maxPct: 60, totalNs: 60 * Self.ms))
        #expect(Self.report(tracker, 7)?.cpu == ThreadCPU(avgPct: 30, maxPct: 30, totalNs: 90 * Self.ms))
        #expect(tracker.reports().count == 2)
    }

    @Test func newThreadsStartWithTheirFirstReading() {
        var tracker = Self.tracker(alertPct: nil)
        // Thread 9 appears in pass 2 with 40 ticks already used: those are not counted.
        Self.feed(&tracker, [[(7, 0)], [(7, 1)], [(7, 2), (9, 40)], [(7, 3), (9, 45)]])
        #expect(Self.report(tracker, 9)?.cpu == ThreadCPU(avgPct: 50, maxPct: 50, totalNs: 50 * Self.ms))
    }

    @Test func aReusedThreadIDStartsOver() {
        var tracker = Self.tracker(alertPct: nil)
        // Fewer ticks than before: another thread got the same tid.
        Self.feed(&tracker, [[(7, 100)], [(7, 105)], [(7, 2)], [(7, 3)]])
        #expect(Self.report(tracker, 7)?.cpu == ThreadCPU(avgPct: 10, maxPct: 10, totalNs: 10 * Self.ms))
    }

    @Test func readingsAtTheSameOrAnEarlierTimeAreIgnored() {
        var tracker = Self.tracker(alertPct: nil)
        _ = tracker.record([Self.reading(7, 0)], atNs: Self.start)
        _ = tracker.record([Self.reading(7, 50)], atNs: Self.start)
        _ = tracker.record([Self.reading(7, 60)], atNs: Self.start - 1)
        _ = tracker.record([Self.reading(7, 5)], atNs: Self.start + Self.interval)
        #expect(Self.report(tracker, 7)?.cpu == ThreadCPU(avgPct: 50, maxPct: 50, totalNs: 50 * Self.ms))
    }

    @Test func hugeTickCountsSaturateInsteadOfTrapping() {
        var tracker = Self.tracker()
        Self.feed(&tracker, [[(7, 0)], [(7, .max)], [(7, .max)]])
        let cpu = Self.report(tracker, 7)?.cpu
        #expect(cpu?.totalNs == .max)
        #expect(cpu?.maxPct ?? 0 > 1e15)
    }

    // MARK: Ordering

    @Test func reportsAreOrderedBusiestFirstThenByTid() {
        var tracker = Self.tracker(alertPct: nil)
        Self.feed(&tracker, [[(30, 0), (10, 0), (20, 0), (40, 0)], [(30, 2), (10, 5), (20, 5), (40, 0)]])
        #expect(tracker.reports().map(\.tid) == [10, 20, 30, 40])
    }

    // MARK: Alerts

    @Test func sustainedBusyIntervalsRaiseOneAlertWithTheirAverage() {
        var tracker = Self.tracker()
        // 80 %, then 100 %: the alert comes with the second and averages both.
        let alerts = Self.feed(&tracker, [[(7, 0)], [(7, 8)], [(7, 18)]])
        #expect(alerts[0].isEmpty)
        #expect(alerts[1].isEmpty)
        let expected = CPUAlert(atNs: 2 * Self.interval, cpuPct: 90, frames: [])
        #expect(alerts[2] == [CPUAlertEvent(tid: 7, name: "t7", atNs: Self.start + 2 * Self.interval, alert: expected)])
        #expect(Self.report(tracker, 7)?.alerts == [expected])
    }

    @Test func exactlyAtTheAlertLevelCountsJustBelowDoesNot() {
        var atLevel = Self.tracker(alertPct: 70)
        #expect(Self.feed(&atLevel, [[(7, 0)], [(7, 7)], [(7, 14)]]).joined().count == 1)
        var below = Self.tracker(alertPct: 70.5)
        #expect(Self.feed(&below, [[(7, 0)], [(7, 7)], [(7, 14)]]).joined().isEmpty)
    }

    @Test func anIdleIntervalBreaksTheStreak() {
        var tracker = Self.tracker()
        let alerts = Self.feed(&tracker, [[(7, 0)], [(7, 9)], [(7, 10)], [(7, 19)], [(7, 20)], [(7, 29)]])
        #expect(alerts.joined().isEmpty)
    }

    @Test func aLongerSustainNeedsMoreIntervals() {
        var tracker = Self.tracker(sustain: 3)
        let alerts = Self.feed(&tracker, [[(7, 0)], [(7, 10)], [(7, 20)], [(7, 30)]])
        #expect(alerts.map(\.count) == [0, 0, 0, 1])
        #expect(alerts[3].first?.alert.cpuPct == 100)
    }

    @Test func cooldownAllowsTheNextAlertOnlyOnceItHasPassed() {
        var tracker = Self.tracker(cooldownNs: 500 * Self.ms)
        // Busy throughout: 80 % for twelve intervals.
        let alerts = Self.feed(&tracker, (0...12).map { [(7, UInt64($0) * 8)] })
        // First at pass 2; the cooldown ends exactly at pass 7; then pass 12.
        #expect(alerts.enumerated().filter { !$0.element.isEmpty }.map(\.offset) == [2, 7, 12])
        #expect(Self.report(tracker, 7)?.alerts.map(\.atNs) == [200, 700, 1_200].map { $0 * Self.ms })
    }

    @Test func cooldownIsPerThread() {
        var tracker = Self.tracker()
        let alerts = Self.feed(
            &tracker, [[(7, 0), (8, 0)], [(7, 9), (8, 9)], [(7, 18), (8, 18)], [(7, 27), (8, 27)]])
        #expect(alerts.map { $0.map(\.tid) } == [[], [], [7, 8], []])
    }

    @Test func noAlertLevelMeansNoAlerts() {
        var tracker = Self.tracker(alertPct: nil)
        #expect(Self.feed(&tracker, [[(7, 0)], [(7, 10)], [(7, 20)], [(7, 30)]]).joined().isEmpty)
    }

    @Test func alertTimesBeforeTheTargetStartClampToZero() {
        var tracker = Self.tracker()
        let alerts = Self.feed(&tracker, [[(7, 0)], [(7, 10)], [(7, 20)]], from: 0)
        #expect(alerts[2].first?.alert.atNs == 0)
        #expect(alerts[2].first?.atNs == 2 * Self.interval)
    }

    @Test func alertStacksReplaceTheMatchingAlertOnly() {
        var tracker = Self.tracker()
        Self.feed(&tracker, [[(7, 0), (8, 0)], [(7, 10), (8, 10)], [(7, 20), (8, 20)]])
        let frame = Frame(symbol: "spinHashRound", module: "lagmon-demo", offset: 0x1234, address: 0x5555_1234)
        let stacked = CPUAlert(atNs: 2 * Self.interval, cpuPct: 100, frames: [frame])
        let elsewhere = CPUAlert(atNs: 9 * Self.interval, cpuPct: 100, frames: [frame])
        let reports = tracker.reports(alertStacks: [7: [stacked], 8: [elsewhere]])
        #expect(reports.first { $0.tid == 7 }?.alerts == [stacked])
        #expect(reports.first { $0.tid == 8 }?.alerts == [CPUAlert(atNs: 2 * Self.interval, cpuPct: 100, frames: [])])
    }
}
