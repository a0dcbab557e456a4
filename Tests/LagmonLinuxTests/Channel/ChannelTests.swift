import CLagmonProbe
import CLagmonShared
import Glibc
import LagmonCore
import Synchronization
import Testing

@testable import LagmonLinux

/// The channel as lagmon reads it, written by the real probe code (lagmon_probe_record) in
/// this process, so layout, atomics and ring arithmetic are checked together.
struct ChannelTests {
    /// Claims slot 0 the way a probe does and returns a typed pointer to it.
    func claimedSlot(_ channel: Channel, thresholdNs: UInt64 = 1_000) -> UnsafeMutablePointer<lagmon_slot> {
        let slot = channel.slotPointer(0).assumingMemoryBound(to: lagmon_slot.self)
        slot.pointee.kind = LAGMON_OBSERVER_CFRUNLOOP.rawValue
        slot.pointee.pid = 42
        slot.pointee.tid = 43
        slot.pointee.stall_threshold_ns = thresholdNs
        slot.pointee.wake_ns = UInt64.max
        lagmon_store_u32(&slot.pointee.state, LAGMON_SLOT_ACTIVE.rawValue)
        return slot
    }

    /// Records `activity` as if the observer saw it at channel time `atNs` (the clock base is
    /// shifted so lagmon_probe_record's own clock read lands on `atNs`).
    func record(_ slot: UnsafeMutablePointer<lagmon_slot>, _ activity: lagmon_activity, atNs: UInt64) {
        let base = MonotonicClock.nowNs() &- atNs
        lagmon_probe_record(slot, activity.rawValue, base)
    }

    @Test func freshChannelHasNoActiveSlots() throws {
        let channel = try Channel(thresholdNs: 100_000_000)
        #expect(channel.activeSlots().isEmpty)
        #expect(channel.probeStatus == ProbeStatus(slotCapacity: Int(LAGMON_SLOT_CAPACITY)))
    }

    /// The slot's thread name is the target's to write: 16 bytes with no terminator, invalid
    /// UTF-8, still give a name of at most 15 characters (the kernel's length, the schema's).
    @Test func aSlotsThreadNameIsAtMostFifteenCharacters() throws {
        let channel = try Channel(thresholdNs: 100_000_000)
        let slot = claimedSlot(channel)
        withUnsafeMutableBytes(of: &slot.pointee.thread_name) { name in
            for index in name.indices { name[index] = 0xFF }
        }
        let read = try #require(channel.activeSlots().first)
        #expect(read.thread.name.count == 15, "\(read.thread.name)")
    }

    @Test func snapshotAndCountersFollowTheObserver() throws {
        let channel = try Channel(thresholdNs: 100_000_000)
        let slot = claimedSlot(channel, thresholdNs: 100_000_000)
        let view = try #require(channel.activeSlots().first)
        #expect(view.thread == ThreadRef(tid: 43, name: ""))
        #expect(view.pid == 42)
        #expect(view.observerName == "cfrunloop")
        record(slot, LAGMON_ACTIVITY_AFTER_WAITING, atNs: 1_000_000_000)
        #expect(view.snapshot().activity == .afterWaiting)
        record(slot, LAGMON_ACTIVITY_BEFORE_TIMERS, atNs: 1_000_100_000)
        record(slot, LAGMON_ACTIVITY_BEFORE_SOURCES, atNs: 1_000_200_000)
        record(slot, LAGMON_ACTIVITY_BEFORE_WAITING, atNs: 1_005_000_000)
        let snapshot = view.snapshot()
        #expect(snapshot.activity == .beforeWaiting)
        // The clock moves between computing the base and reading it: allow a few microseconds.
        #expect(snapshot.sinceNs >= 1_005_000_000 && snapshot.sinceNs < 1_005_100_000)
        let counters = view.counters()
        #expect(counters.passes == 1)
        #expect(counters.transitions == 4)
        #expect(counters.busyCount == 1)
        #expect(counters.busyTotalNs > 4_900_000 && counters.busyTotalNs < 5_100_000, "busy \(counters.busyTotalNs)")
        #expect(view.openBusySinceNs == nil)
        let buckets = view.busyBuckets()
        #expect(buckets.values.reduce(0, +) == 1)
        #expect(view.channel === channel)
    }

    @Test func stallsAreRecordedByTheObserverAndDrained() throws {
        let channel = try Channel(thresholdNs: 1_000)
        let slot = claimedSlot(channel, thresholdNs: 1_000_000)
        let view = try #require(channel.activeSlots().first)
        record(slot, LAGMON_ACTIVITY_AFTER_WAITING, atNs: 10_000_000)
        record(slot, LAGMON_ACTIVITY_BEFORE_TIMERS, atNs: 15_000_000)  // 5 ms in afterWaiting: a stall
        record(slot, LAGMON_ACTIVITY_BEFORE_SOURCES, atNs: 15_100_000)  // 100 µs in beforeTimers: not stalling state
        record(slot, LAGMON_ACTIVITY_BEFORE_WAITING, atNs: 15_200_000)  // 100 µs: below threshold
        var cursor: UInt64 = 0
        let (records, lost) = view.drainStalls(cursor: &cursor)
        #expect(lost == 0)
        #expect(cursor == 1)
        let record = try #require(records.first)
        #expect(records.count == 1)
        #expect(record.activity == .afterWaiting)
        #expect(record.startNs >= 10_000_000 && record.startNs < 10_100_000)
        #expect(record.endNs - record.startNs >= 4_900_000 && record.endNs - record.startNs < 5_100_000)
        #expect(view.drainStalls(cursor: &cursor).records.isEmpty)
    }

    @Test func ringOverflowIsCountedNotHidden() throws {
        let channel = try Channel(thresholdNs: 1)
        let slot = claimedSlot(channel, thresholdNs: 10)
        let view = try #require(channel.activeSlots().first)
        let capacity = UInt64(LAGMON_STALL_RING_CAPACITY)
        let stalls = capacity + 100
        var time: UInt64 = 1_000_000
        record(slot, LAGMON_ACTIVITY_AFTER_WAITING, atNs: time)
        for _ in 0..<stalls {
            time += 1_000_000
            record(slot, LAGMON_ACTIVITY_BEFORE_SOURCES, atNs: time)
        }
        var cursor: UInt64 = 0
        let (records, lost) = view.drainStalls(cursor: &cursor)
        #expect(UInt64(records.count) + lost == stalls)
        #expect(lost == 100)
        #expect(cursor == stalls)
        #expect(records.first.map { $0.startNs < $0.endNs } == true)
    }

    @Test func watchdogParksOnAnIdleLoopAndTheObserverWakesIt() throws {
        let channel = try Channel(thresholdNs: 50_000_000)
        let slot = claimedSlot(channel, thresholdNs: 50_000_000)
        let view = try #require(channel.activeSlots().first)
        record(slot, LAGMON_ACTIVITY_BEFORE_WAITING, atNs: channel.nowNs())
        let configuration = StallDetector.Configuration(
            thresholdNs: 50_000_000, stalledPollNs: 5_000_000, parkAfterIdleNs: 0, parkTimeoutNs: 60_000_000_000)
        let watchdog = Watchdog(slot: view, configuration: configuration, latenessToleranceNs: 2_000_000)
        try watchdog.start()
        // Wait (bounded) until the watchdog announces it is parked.
        let deadline = MonotonicClock.nowNs() + 5_000_000_000
        while lagmon_load_u32(&slot.pointee.watchdog_parked) == 0 && MonotonicClock.nowNs() < deadline { sched_yield() }
        #expect(lagmon_load_u32(&slot.pointee.watchdog_parked) == 1)
        // The loop wakes: the observer must post exactly once and clear the flag.
        record(slot, LAGMON_ACTIVITY_AFTER_WAITING, atNs: channel.nowNs())
        #expect(lagmon_load_u32(&slot.pointee.watchdog_parked) == 0)
        let result = watchdog.stop()
        #expect(result.lateness.observerPosts == 1)
    }

    /// The CF observer does not watch entry (each observed activity costs CoreFoundation's
    /// observer dispatch): a loop pumped again after an exit shows up as before-sources, and
    /// that first awake transition after an idle one must wake a parked watchdog too.
    @Test func beforeSourcesAfterAnExitWakesAParkedWatchdog() throws {
        let channel = try Channel(thresholdNs: 50_000_000)
        let slot = claimedSlot(channel, thresholdNs: 50_000_000)
        let view = try #require(channel.activeSlots().first)
        record(slot, LAGMON_ACTIVITY_BEFORE_SOURCES, atNs: channel.nowNs())
        record(slot, LAGMON_ACTIVITY_EXIT, atNs: channel.nowNs())
        let configuration = StallDetector.Configuration(
            thresholdNs: 50_000_000, stalledPollNs: 5_000_000, parkAfterIdleNs: 0, parkTimeoutNs: 60_000_000_000)
        let watchdog = Watchdog(slot: view, configuration: configuration, latenessToleranceNs: 2_000_000)
        try watchdog.start()
        let deadline = MonotonicClock.nowNs() + 5_000_000_000
        while lagmon_load_u32(&slot.pointee.watchdog_parked) == 0 && MonotonicClock.nowNs() < deadline { sched_yield() }
        #expect(lagmon_load_u32(&slot.pointee.watchdog_parked) == 1)
        record(slot, LAGMON_ACTIVITY_BEFORE_SOURCES, atNs: channel.nowNs())
        #expect(lagmon_load_u32(&slot.pointee.watchdog_parked) == 0)
        // A second pass without an idle transition between is the common path: no post.
        record(slot, LAGMON_ACTIVITY_BEFORE_SOURCES, atNs: channel.nowNs())
        let result = watchdog.stop()
        #expect(result.lateness.observerPosts == 1)
        #expect(view.counters().passes == 3)
    }

    /// A loop the target says went busy a year from now, with its wake-up word turned back on
    /// every post: the watchdog sleeps at most a threshold (or its parked timeout) at a time, and
    /// its stop ends it all the same. (A soak's watchdog slept through its stop towards such a
    /// deadline, 334 days away: lagmon never ended.)
    @Test func aForgedBusyStartNeverKeepsTheWatchdogFromItsStop() throws {
        #expect(
            Watchdog.bounded(.at(UInt64.max - 1), nowNs: 1_000, longestNs: 50) == .at(1_050)
                && Watchdog.bounded(.parked(until: 9_000), nowNs: 1_000, longestNs: 50) == .parked(until: 1_050)
                && Watchdog.bounded(.at(1_020), nowNs: 1_000, longestNs: 50) == .at(1_020))
        let channel = try Channel(thresholdNs: 50_000_000)
        let slot = claimedSlot(channel, thresholdNs: 50_000_000)
        let view = try #require(channel.activeSlots().first)
        record(slot, LAGMON_ACTIVITY_AFTER_WAITING, atNs: channel.nowNs() + 365 * 86_400_000_000_000)
        let configuration = StallDetector.Configuration(thresholdNs: 50_000_000, stalledPollNs: 5_000_000)
        let watchdog = Watchdog(slot: view, configuration: configuration, latenessToleranceNs: 2_000_000)
        try watchdog.start()
        let wordAddress = UInt(bitPattern: view.wakeup().word)
        // The target keeps undoing lagmon's posts until the stop has returned.
        let stopped = Atomic<Bool>(false)
        let undoer = try JoinableThread(name: "undoer") {
            let word = UnsafeMutablePointer<UInt32>(bitPattern: wordAddress)!
            let seen = lagmon_load_u32(word)
            while !stopped.load(ordering: .acquiring) {
                if lagmon_load_u32(word) != seen { word.pointee = seen }
            }
        }
        let stopper = try JoinableThread(name: "stopper") {
            _ = watchdog.stop()
            stopped.store(true, ordering: .releasing)
        }
        #expect(stopper.join(withinNs: 60_000_000_000), "stop() did not return")
        stopped.store(true, ordering: .releasing)
        undoer.join()
    }

    @Test func watchdogSeesALiveStall() throws {
        let channel = try Channel(thresholdNs: 20_000_000)
        let slot = claimedSlot(channel, thresholdNs: 20_000_000)
        let view = try #require(channel.activeSlots().first)
        let began = Mutex<[UInt64]>([])
        let configuration = StallDetector.Configuration(thresholdNs: 20_000_000, stalledPollNs: 2_000_000)
        let watchdog = Watchdog(slot: view, configuration: configuration, latenessToleranceNs: 2_000_000) { event, _ in
            if case .began(let stall) = event { began.withLock { $0.append(stall.startNs) } }
        }
        let startNs = channel.nowNs()
        record(slot, LAGMON_ACTIVITY_AFTER_WAITING, atNs: startNs)
        try watchdog.start()
        let deadline = MonotonicClock.nowNs() + 5_000_000_000
        while began.withLock({ $0.isEmpty }) && MonotonicClock.nowNs() < deadline { sched_yield() }
        record(slot, LAGMON_ACTIVITY_BEFORE_WAITING, atNs: channel.nowNs())
        let result = watchdog.stop()
        #expect(began.withLock { $0 }.count == 1)
        let (liveStart, noticedNs) = try #require(result.liveStallNoticedNs.first)
        #expect(noticedNs > liveStart + 20_000_000)
        #expect(liveStart >= startNs && liveStart < startNs + 100_000)
        #expect(result.stallRecords.count == 1)
        #expect(result.stallRecords.first?.startNs == liveStart)
    }
}
