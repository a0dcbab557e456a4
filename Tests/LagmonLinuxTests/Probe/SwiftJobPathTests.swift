import CLagmonProbe
import CLagmonShared
import Glibc
import LagmonCore
import Synchronization
import Testing

@testable import LagmonLinux

/// The preload shim's per-job path (lagmon_swift_job.h) on a slot of a real channel, run in this
/// process around jobs of our own, as the shim runs it around the Swift runtime's, and the
/// watchdog that reads it: a job slot's watchdog never parks, since the job path never wakes one.
@Suite(.serialized)
struct SwiftJobPathTests {
    /// A job: what the slot looked like while it ran, and how long it ran.
    final class Job: @unchecked Sendable {
        var seenWord: UInt64 = 0
        var seenWakeNs: UInt64 = 0
        /// When the job itself began (channel clock): after the job path recorded its start.
        var enteredNs: UInt64 = 0
        var spinNs: UInt64 = 0
        var whileRunning: (() -> Void)?
        let slot: UnsafeMutablePointer<lagmon_slot>

        init(slot: UnsafeMutablePointer<lagmon_slot>) { self.slot = slot }
    }

    /// The job entry, as libdispatch calls `__swift_run_job`: one pointer, here the `Job`.
    static let run: lagmon_swift_job_function = { context in
        let job = Unmanaged<Job>.fromOpaque(context!).takeUnretainedValue()
        job.enteredNs = MonotonicClock.nowNs() - SwiftJobPathTests.clockBaseNs
        job.seenWord = lagmon_load_u64(&job.slot.pointee.word)
        job.seenWakeNs = lagmon_load_u64(&job.slot.pointee.wake_ns)
        let until = MonotonicClock.nowNs() + job.spinNs
        while MonotonicClock.nowNs() < until {}
        job.whileRunning?()
    }

    /// Where the job entry is kept, as the shim keeps the runtime's: the job path reads it when it
    /// calls the job.
    nonisolated(unsafe) static var entry: lagmon_swift_job_function? = run

    /// The channel clock's base of the test running (tests of this suite run one at a time).
    nonisolated(unsafe) static var clockBaseNs: UInt64 = 0

    /// The precise channel clock only, as the shim's when the counter is not usable: the clock is
    /// never calibrated, so every read takes this slow path.
    static let precise: lagmon_swift_job_slow_clock = { _, _ in MonotonicClock.nowNs() - SwiftJobPathTests.clockBaseNs }

    static let preciseOnly: @convention(c) () -> UInt64 = { MonotonicClock.nowNs() - SwiftJobPathTests.clockBaseNs }

    static let counterNow: @convention(c) () -> UInt64 = { lagmon_tsc_read() }

    /// The counter clock, as the shim's when the counter is usable.
    static let counter: lagmon_swift_job_slow_clock = { clock, tsc in
        lagmon_tsc_clock_now(clock, tsc, SwiftJobPathTests.preciseOnly, SwiftJobPathTests.counterNow)
    }

    /// A clock for the job path: calibrated (its reads come from the counter) or precise only.
    func jobClock(calibrated: Bool) -> lagmon_tsc_clock {
        var clock = lagmon_tsc_clock()
        guard calibrated else { return clock }
        // Until the rate is measured (10 ms after the first read), bounded.
        let deadline = MonotonicClock.nowNs() + 10_000_000_000
        while clock.rate == 0 && MonotonicClock.nowNs() < deadline { _ = lagmon_swift_job_now(&clock, Self.counter) }
        return clock
    }

    /// Slot 0 of `channel`, claimed as the shim claims a pool thread's: idle (before-waiting).
    func poolSlot(_ channel: Channel, thresholdNs: UInt64) -> UnsafeMutablePointer<lagmon_slot> {
        Self.clockBaseNs = channel.clockBaseNs
        let slot = channel.slotPointer(0).assumingMemoryBound(to: lagmon_slot.self)
        slot.pointee.kind = LAGMON_OBSERVER_SWIFT_POOL.rawValue
        slot.pointee.pid = 42
        slot.pointee.tid = 43
        slot.pointee.stall_threshold_ns = thresholdNs
        slot.pointee.wake_ns = UInt64.max
        slot.pointee.word = lagmon_word_make(channel.nowNs(), LAGMON_ACTIVITY_BEFORE_WAITING.rawValue)
        lagmon_store_u32(&slot.pointee.state, LAGMON_SLOT_ACTIVE.rawValue)
        return slot
    }

    /// Runs `job` as the shim runs a pool job. `channel`'s tick is 0 unless a test set it or started a
    /// ticker: every job is then timed exactly; so is every 64th job of a slot (its transitions, two
    /// a job, a multiple of 128).
    func runPoolJob(_ job: Job, clock: UnsafeMutablePointer<lagmon_tsc_clock>, channel: Channel) {
        let context = Unmanaged.passUnretained(job).toOpaque()
        let slow = clock.pointee.rate != 0 ? Self.counter : Self.precise
        var tick: UnsafePointer<lagmon_swift_tick>? = UnsafePointer(channel.swiftTick)
        lagmon_swift_job_run_pool(job.slot, &tick, Self.preciseOnly, clock, slow, &Self.entry, context)
    }

    @Test(arguments: [false, true])
    func aShortJobIsOneBusyPeriodAndTwoTransitions(counterClock: Bool) throws {
        let channel = try Channel(thresholdNs: 100_000_000)
        let slot = poolSlot(channel, thresholdNs: 100_000_000)
        let view = try #require(channel.activeSlots().first)
        var clock = jobClock(calibrated: counterClock)
        #expect((clock.rate != 0) == counterClock, "\(clock)")
        let job = Job(slot: slot)
        job.spinNs = 200_000
        let before = channel.nowNs()
        runPoolJob(job, clock: &clock, channel: channel)
        let after = channel.nowNs()
        // While it ran: after-waiting since its start, and the open busy period began then.
        #expect(lagmon_word_activity(job.seenWord) == LAGMON_ACTIVITY_AFTER_WAITING.rawValue)
        let startNs = lagmon_word_timestamp(job.seenWord)
        // The precise clock is the test's own; the counter clock extrapolates at a rate measured
        // over 10 ms, which a preempted calibration can skew: only the order is certain then.
        if !counterClock { #expect(startNs >= before && startNs <= after) }
        #expect(job.seenWakeNs == startNs)
        // After: idle since its end, the busy period closed and counted once.
        let snapshot = view.snapshot()
        #expect(snapshot.activity == .beforeWaiting)
        // A counter clock whose rate a preemption skewed, re-anchored after a preemption longer
        // than its span, is clamped rather than go backwards: only then can the end equal the start.
        #expect(snapshot.sinceNs >= startNs)
        if !counterClock { #expect(snapshot.sinceNs >= startNs + 200_000 && snapshot.sinceNs <= after) }
        let counters = view.counters()
        #expect(counters.transitions == 2)
        #expect(counters.busyCount == 1)
        #expect(counters.busyTotalNs == snapshot.sinceNs - startNs)
        #expect(counters.busyMaxNs == counters.busyTotalNs)
        #expect(view.openBusySinceNs == nil)
        #expect(view.busyBuckets() == [Int(lagmon_histogram_index(counters.busyTotalNs)): 1])
        var cursor: UInt64 = 0
        #expect(view.drainStalls(cursor: &cursor).records.isEmpty)
        #expect(counters.posts == 0)
    }

    @Test func aJobPastTheThresholdLeavesAStallRecord() throws {
        let channel = try Channel(thresholdNs: 1_000_000)
        let slot = poolSlot(channel, thresholdNs: 1_000_000)
        let view = try #require(channel.activeSlots().first)
        var clock = lagmon_tsc_clock()
        let job = Job(slot: slot)
        job.spinNs = 3_000_000
        runPoolJob(job, clock: &clock, channel: channel)
        job.spinNs = 0
        runPoolJob(job, clock: &clock, channel: channel)
        var cursor: UInt64 = 0
        let records = view.drainStalls(cursor: &cursor).records
        let record = try #require(records.first)
        #expect(records.count == 1)
        #expect(record.activity == .afterWaiting)
        #expect(record.endNs - record.startNs >= 3_000_000)
        #expect(view.counters().busyCount == 2)
        #expect(view.counters().busyMaxNs == record.endNs - record.startNs)
    }

    /// A job longer than the counter clock's span (50 ms) is timed by the precise clock at its end,
    /// and still from its own start.
    @Test func aJobLongerThanTheCounterSpanIsTimedByThePreciseClock() throws {
        let channel = try Channel(thresholdNs: 1_000_000_000)
        let slot = poolSlot(channel, thresholdNs: 1_000_000_000)
        let view = try #require(channel.activeSlots().first)
        var clock = jobClock(calibrated: true)
        #expect(clock.rate != 0)
        let job = Job(slot: slot)
        job.spinNs = 60_000_000
        let before = channel.nowNs()
        runPoolJob(job, clock: &clock, channel: channel)
        let after = channel.nowNs()
        let startNs = lagmon_word_timestamp(job.seenWord)
        let counters = view.counters()
        #expect(counters.busyCount == 1)
        // The spin alone took 60 ms of the precise clock; the start is the counter clock's, whose
        // anchors are pairs no further apart than 65,536 ticks (a preempted pair anchors nothing),
        // so within a fraction of a millisecond of the precise clock however loaded the machine.
        #expect(counters.busyTotalNs >= 59_000_000 && counters.busyTotalNs <= after - before + 1_000_000)
        #expect(view.snapshot().sinceNs == startNs + counters.busyTotalNs)
        #expect(clock.last_ns == view.snapshot().sinceNs)
    }

    @Test func aMainActorJobNeverStartsBeforeThePreviousOneEnded() throws {
        let channel = try Channel(thresholdNs: 100_000_000)
        let slot = poolSlot(channel, thresholdNs: 100_000_000)
        let view = try #require(channel.activeSlots().first)
        // The previous job ended on another thread whose clock reads 5 ms ahead of this one's.
        let aheadNs = channel.nowNs() + 5_000_000
        slot.pointee.word = lagmon_word_make(aheadNs, LAGMON_ACTIVITY_BEFORE_WAITING.rawValue)
        var clock = lagmon_tsc_clock()
        let job = Job(slot: slot)
        let context = Unmanaged.passUnretained(job).toOpaque()
        lagmon_swift_job_run_main(slot, 77, &clock, Self.precise, &Self.entry, context)
        #expect(lagmon_word_timestamp(job.seenWord) == aheadNs)
        #expect(view.snapshot().sinceNs >= aheadNs)
        #expect(slot.pointee.tid == 77)
        #expect(view.counters().busyCount == 1)
    }

    @Test func aJobSlotsWatchdogNeverParks() throws {
        let channel = try Channel(thresholdNs: 50_000_000)
        let slot = poolSlot(channel, thresholdNs: 50_000_000)
        let view = try #require(channel.activeSlots().first)
        let configuration = StallDetector.Configuration(
            thresholdNs: 50_000_000, stalledPollNs: 5_000_000, parkAfterIdleNs: 0, parkTimeoutNs: 60_000_000_000)
        #expect(Watchdog.tuned(configuration, for: view).parkAfterIdleNs == UInt64.max)
        slot.pointee.kind = LAGMON_OBSERVER_CFRUNLOOP.rawValue
        #expect(Watchdog.tuned(configuration, for: view) == configuration)
    }

    /// A pool thread's exit is final: its slot's watchdog parks then (until lagmon stops it), instead of
    /// looking every half threshold for the rest of the session.
    @Test func aJobSlotsWatchdogParksOnceItsThreadExited() throws {
        let channel = try Channel(thresholdNs: 20_000_000)
        let slot = poolSlot(channel, thresholdNs: 20_000_000)
        let view = try #require(channel.activeSlots().first)
        var clock = lagmon_tsc_clock()
        runPoolJob(Job(slot: slot), clock: &clock, channel: channel)
        lagmon_probe_record_at(slot, LAGMON_ACTIVITY_EXIT.rawValue, channel.nowNs())
        let configuration = StallDetector.Configuration(
            thresholdNs: 20_000_000, stalledPollNs: 2_000_000, armLeadNs: 10_000_000,
            parkTimeoutNs: 60_000_000_000)
        let watchdog = Watchdog(slot: view, configuration: configuration, latenessToleranceNs: 2_000_000)
        try watchdog.start()
        // Bounded (20 s); a watchdog that never parks is never seen parked.
        let deadline = MonotonicClock.nowNs() + 20_000_000_000
        while lagmon_load_u32(&slot.pointee.watchdog_parked) == 0 && MonotonicClock.nowNs() < deadline {
            sched_yield()
        }
        let parked = lagmon_load_u32(&slot.pointee.watchdog_parked) != 0
        let result = watchdog.stop()
        #expect(parked)
        #expect(result.stallRecords.isEmpty)
    }

    /// A stall that begins on an idle job slot (the watchdog would have parked on it long before,
    /// with a 60 s housekeeping timeout) is seen while the job still runs, with no post.
    @Test func aWatchdogSeesAJobStallWithoutBeingWoken() throws {
        let channel = try Channel(thresholdNs: 20_000_000)
        let slot = poolSlot(channel, thresholdNs: 20_000_000)
        let view = try #require(channel.activeSlots().first)
        let began = Mutex<[UInt64]>([])
        let configuration = StallDetector.Configuration(
            thresholdNs: 20_000_000, stalledPollNs: 2_000_000, parkAfterIdleNs: 0, parkTimeoutNs: 60_000_000_000)
        let watchdog = Watchdog(slot: view, configuration: configuration, latenessToleranceNs: 2_000_000) { event, _ in
            if case .began(let stall) = event { began.withLock { $0.append(stall.startNs) } }
        }
        try watchdog.start()
        var clock = lagmon_tsc_clock()
        let job = Job(slot: slot)
        var parkedSeen = false
        job.whileRunning = {
            // The job blocks until the watchdog reports its stall (bounded: 20 s).
            let deadline = MonotonicClock.nowNs() + 20_000_000_000
            while began.withLock({ $0.isEmpty }) && MonotonicClock.nowNs() < deadline {
                if lagmon_load_u32(&slot.pointee.watchdog_parked) != 0 { parkedSeen = true }
                sched_yield()
            }
        }
        runPoolJob(job, clock: &clock, channel: channel)
        let result = watchdog.stop()
        #expect(!parkedSeen)
        #expect(began.withLock { $0 } == [lagmon_word_timestamp(job.seenWord)])
        #expect(result.lateness.observerPosts == 0)
        #expect(result.stallRecords.count == 1)
        #expect(result.stallRecords.first?.startNs == lagmon_word_timestamp(job.seenWord))
    }

    // MARK: Jobs timed by lagmon's tick

    /// A pool job that is not the thread's sample starts and ends at the tick it reads: no clock,
    /// its tick length in the busy total, nothing in the histogram or the longest period.
    @Test func aTickedJobStartsAndEndsAtTheTickItReads() throws {
        let channel = try Channel(thresholdNs: 100_000_000)
        let slot = poolSlot(channel, thresholdNs: 100_000_000)
        let view = try #require(channel.activeSlots().first)
        var clock = lagmon_tsc_clock()
        let startTick = channel.nowNs()
        channel.storeSwiftTick(startTick)
        let job = Job(slot: slot)
        job.spinNs = 200_000
        // lagmon ticks twice while the job runs.
        job.whileRunning = { channel.storeSwiftTick(startTick + 3_000_000) }
        slot.pointee.transitions = 2  // not the slot's sampled job
        runPoolJob(job, clock: &clock, channel: channel)
        #expect(job.seenWord == lagmon_word_make(startTick, LAGMON_ACTIVITY_AFTER_WAITING.rawValue))
        #expect(job.seenWakeNs == startTick)
        #expect(view.snapshot() == LoopSnapshot(activity: .beforeWaiting, sinceNs: startTick + 3_000_000))
        let counters = view.counters()
        #expect(counters.transitions == 4)
        #expect(counters.busyCount == 1)
        #expect(counters.busyTotalNs == 3_000_000)
        #expect(counters.busyMaxNs == 0)
        #expect(view.busyBuckets().isEmpty)
        #expect(view.openBusySinceNs == nil)
        #expect(clock.last_ns == 0, "the job read no clock")
        var cursor: UInt64 = 0
        #expect(view.drainStalls(cursor: &cursor).records.isEmpty)
    }

    /// A ticked job never starts before the thread's previous job ended: after a job whose end was
    /// read exactly (later than the tick still is), the next starts at that end, so the thread's
    /// busy periods (and its stalls) never overlap, and it ends exactly as its tick went backwards.
    @Test func aTickedJobStartsNoEarlierThanThePreviousJobEnded() throws {
        let channel = try Channel(thresholdNs: 100_000_000)
        let slot = poolSlot(channel, thresholdNs: 100_000_000)
        let view = try #require(channel.activeSlots().first)
        var clock = lagmon_tsc_clock()
        let tickNs = channel.nowNs()
        channel.storeSwiftTick(tickNs)
        let previousEndNs = tickNs + 3_000_000
        slot.pointee.word = lagmon_word_make(previousEndNs, LAGMON_ACTIVITY_BEFORE_WAITING.rawValue)
        slot.pointee.transitions = 2  // not the slot's sampled job
        let job = Job(slot: slot)
        runPoolJob(job, clock: &clock, channel: channel)
        #expect(job.seenWakeNs == previousEndNs)
        #expect(job.seenWord == lagmon_word_make(previousEndNs, LAGMON_ACTIVITY_AFTER_WAITING.rawValue))
        let snapshot = view.snapshot()
        #expect(snapshot.activity == .beforeWaiting && snapshot.sinceNs >= previousEndNs)
        #expect(view.counters().busyCount == 1)
    }

    /// One job in 64 is timed exactly and counts 64 times in the histogram, so the distribution's
    /// count follows the jobs'.
    @Test func oneJobInSixtyFourIsTimedExactlyForTheDistribution() throws {
        let channel = try Channel(thresholdNs: 100_000_000)
        let slot = poolSlot(channel, thresholdNs: 100_000_000)
        let view = try #require(channel.activeSlots().first)
        var clock = lagmon_tsc_clock()
        channel.storeSwiftTick(channel.nowNs())
        let job = Job(slot: slot)
        for _ in 0..<65 { runPoolJob(job, clock: &clock, channel: channel) }
        let counters = view.counters()
        #expect(counters.busyCount == 65)
        #expect(counters.transitions == 130)
        let buckets = view.busyBuckets()
        #expect(buckets.values.reduce(0, +) == 128, "jobs 0 and 64 were timed: \(buckets)")
        #expect(counters.busyMaxNs > 0 && counters.busyMaxNs <= counters.busyTotalNs)
    }

    /// A stall on a ticked pool job starts at the tick the job read before it began: never after the
    /// job's own start, and at most one tick period (plus the ticker's lateness) before it. Its end
    /// is the exact clock's, and the watchdog sees the same start live. Were the start the
    /// watchdog's first look at the busy job, it would come after the job began.
    @Test func aTickedStallStartsAtMostOneTickBeforeTheJob() throws {
        let thresholdNs: UInt64 = 20_000_000
        let channel = try Channel(thresholdNs: thresholdNs)
        let slot = poolSlot(channel, thresholdNs: thresholdNs)
        let view = try #require(channel.activeSlots().first)
        let ticker = SwiftJobTicker(channel: channel, thresholdNs: thresholdNs, latenessToleranceNs: 2_000_000)
        try ticker.start()
        let tickDeadline = MonotonicClock.nowNs() + 20_000_000_000
        while lagmon_load_u64(&channel.swiftTick.pointee.now_ns) == 0 && MonotonicClock.nowNs() < tickDeadline {
            sched_yield()
        }
        let began = Mutex<[UInt64]>([])
        let configuration = StallDetector.Configuration(
            thresholdNs: thresholdNs, stalledPollNs: 2_000_000, parkAfterIdleNs: 0, parkTimeoutNs: 60_000_000_000)
        let watchdog = Watchdog(slot: view, configuration: configuration, latenessToleranceNs: 2_000_000) { event, _ in
            if case .began(let stall) = event { began.withLock { $0.append(stall.startNs) } }
        }
        try watchdog.start()
        var clock = lagmon_tsc_clock()
        let job = Job(slot: slot)
        job.spinNs = 2 * thresholdNs
        job.whileRunning = {
            // Until the watchdog reports the stall (bounded: 20 s).
            let deadline = MonotonicClock.nowNs() + 20_000_000_000
            while began.withLock({ $0.isEmpty }) && MonotonicClock.nowNs() < deadline { sched_yield() }
        }
        slot.pointee.transitions = 2  // not the slot's sampled job
        let beforeNs = channel.nowNs()
        runPoolJob(job, clock: &clock, channel: channel)
        let afterNs = channel.nowNs()
        let result = watchdog.stop()
        let lateness = ticker.stop()
        let record = try #require(result.stallRecords.first)
        #expect(result.stallRecords.count == 1)
        #expect(record.startNs == lagmon_word_timestamp(job.seenWord))
        #expect(record.startNs <= job.enteredNs, "a stall never starts after its job")
        let periodNs = SwiftTick.periodNs(thresholdNs: thresholdNs)
        #expect(
            record.startNs + periodNs + lateness.maxNs + 1_000_000 >= beforeNs,
            "start \(record.startNs), job called at \(beforeNs), ticker late up to \(lateness.maxNs)")
        #expect(record.endNs - job.enteredNs >= 2 * thresholdNs && record.endNs <= afterNs)
        #expect(began.withLock { $0 } == [record.startNs])
        #expect(lateness.wakeups > 0)
    }
}
