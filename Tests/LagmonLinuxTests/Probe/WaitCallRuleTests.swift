import CLagmonProbe
import CLagmonShared
import LagmonCore
import Testing

@testable import LagmonLinux

/// The wait-call loop rule (lagmon_waitcall.h), driven by hand: which threads count as loops,
/// what the slot sees when one qualifies, and what ends a loop. Times are channel nanoseconds.
struct WaitCallRuleTests {
    static let ms: UInt64 = 1_000_000
    let epollFive = lagmon_waitcall_key(UInt32(LAGMON_WAITCALL_EPOLL.rawValue), 5)

    /// A thread's state, as thread-local storage starts it: all zero.
    final class Thread {
        var state = lagmon_waitcall_thread()
        var now: UInt64 = 1_000 * WaitCallRuleTests.ms

        /// Enters a wait on `key`, `busy` after the previous return; returns (token, qualified).
        func enter(_ key: UInt64, busy: UInt64 = WaitCallRuleTests.ms) -> (token: Int32, qualified: Bool) {
            now += busy
            var qualified: Int32 = 0
            let token = lagmon_waitcall_count_entry(&state, key, now, &qualified)
            return (token, qualified != 0)
        }

        /// Returns from the wait `token` after sleeping `sleep`.
        func leave(_ token: Int32, sleep: UInt64 = 20 * WaitCallRuleTests.ms) {
            now += sleep
            lagmon_waitcall_count_return(&state, token, now)
        }

        /// Waits once on `key` (busy, then asleep); returns whether that wait qualified the thread.
        @discardableResult
        func wait(_ key: UInt64, busy: UInt64 = WaitCallRuleTests.ms) -> (token: Int32, qualified: Bool) {
            let entered = enter(key, busy: busy)
            if !entered.qualified { leave(entered.token) }
            return entered
        }
    }

    /// A fresh slot in a real channel, claimed but not published, as the preload shim gets it.
    func freshSlot(_ channel: Channel, thresholdNs: UInt64 = 100 * ms) -> UnsafeMutablePointer<lagmon_slot> {
        let slot = channel.slotPointer(0).assumingMemoryBound(to: lagmon_slot.self)
        slot.pointee.kind = LAGMON_OBSERVER_WAITCALL.rawValue
        slot.pointee.pid = 42
        slot.pointee.stall_threshold_ns = thresholdNs
        slot.pointee.wake_ns = UInt64.max
        return slot
    }

    @Test func theThirdWaitOnOneWaitSetMakesALoop() {
        let thread = Thread()
        #expect(thread.wait(epollFive).qualified == false)
        #expect(thread.wait(epollFive).qualified == false)
        #expect(thread.wait(epollFive).qualified == true)
        #expect(LAGMON_WAITCALL_QUALIFYING_WAITS == 3)
    }

    @Test func oneOffWaitsOnChangingDescriptorsNeverMakeALoop() {
        // A worker doing blocking I/O: one poll per socket, never the same one three times.
        let thread = Thread()
        for descriptor in 10..<40 {
            let key = lagmon_waitcall_key(UInt32(LAGMON_WAITCALL_POLL.rawValue), Int64(descriptor))
            #expect(thread.wait(key).qualified == false)
        }
    }

    @Test func interleavedWaitsOnOtherSetsDoNotResetTheCount() {
        // CFRunLoop's pass on Linux: ppoll on its port set, a non-blocking epoll_wait, a
        // non-blocking ppoll on the main queue's descriptor; the first reaches three first.
        let thread = Thread()
        let portSet = lagmon_waitcall_key(UInt32(LAGMON_WAITCALL_POLL.rawValue), 4)
        let drain = lagmon_waitcall_key(UInt32(LAGMON_WAITCALL_EPOLL.rawValue), 4)
        let mainQueue = lagmon_waitcall_key(UInt32(LAGMON_WAITCALL_POLL.rawValue), 6)
        var qualifiedOn: [UInt64] = []
        for _ in 0..<3 {
            for key in [portSet, drain, mainQueue] where thread.wait(key).qualified { qualifiedOn.append(key) }
        }
        #expect(qualifiedOn.first == portSet)
    }

    @Test func aPollAndAnEpollOnTheSameDescriptorAreDifferentWaitSets() {
        let poll = lagmon_waitcall_key(UInt32(LAGMON_WAITCALL_POLL.rawValue), 5)
        let select = lagmon_waitcall_key(UInt32(LAGMON_WAITCALL_SELECT.rawValue), 5)
        #expect(Set([epollFive, poll, select]).count == 3)
        #expect(lagmon_waitcall_key_descriptor(epollFive) == 5)
        #expect(lagmon_waitcall_key_descriptor(lagmon_waitcall_key(UInt32(LAGMON_WAITCALL_POLL.rawValue), -1)) == -1)
    }

    @Test func aFifthKeyEvictsTheOldestCandidate() {
        let thread = Thread()
        let keys = (1...5).map { lagmon_waitcall_key(UInt32(LAGMON_WAITCALL_EPOLL.rawValue), Int64($0)) }
        for key in keys.prefix(4) { thread.wait(key) }
        for key in keys.prefix(4) { thread.wait(key) }  // two waits each on four keys
        thread.wait(keys[4])  // evicts the first candidate, keys[0]
        #expect(thread.wait(keys[3]).qualified == true, "keys[3] kept its count")
        #expect(thread.wait(keys[0]).qualified == false, "keys[0] starts over")
    }

    @Test func qualifyingReplaysTheBusyPeriodsBeforeIt() throws {
        // Wait, 150 ms of work (a stall the loop had before anyone watched it), wait, 2 ms, wait.
        let channel = try Channel(thresholdNs: 100 * Self.ms)
        let slot = freshSlot(channel)
        let thread = Thread()
        thread.wait(epollFive)
        let stallStart = thread.now
        thread.wait(epollFive, busy: 150 * Self.ms)
        let (token, qualified) = thread.enter(epollFive, busy: 2 * Self.ms)
        #expect(qualified)
        slot.pointee.claimed_ns = lagmon_waitcall_history_start(&thread.state, token, thread.now)
        #expect(slot.pointee.claimed_ns == stallStart, "observation starts at the first return")
        lagmon_waitcall_adopt(&thread.state, token, slot, 1, thread.now)
        #expect(thread.state.mode == LAGMON_WAITCALL_LOOP.rawValue)
        #expect(thread.state.loop_key == epollFive)
        let view = ChannelSlot(channel: channel, index: 0)
        var cursor: UInt64 = 0
        let stalls = view.drainStalls(cursor: &cursor).records
        #expect(
            stalls == [StallRecord(startNs: stallStart, endNs: stallStart + 150 * Self.ms, activity: .afterWaiting)])
        #expect(view.snapshot() == LoopSnapshot(activity: .beforeWaiting, sinceNs: thread.now))
        let counters = view.counters()
        #expect(counters.busyCount == 2)
        #expect(counters.busyTotalNs == 152 * Self.ms)
        #expect(counters.passes == 2, "a wait-call loop's passes are its wake-ups")
    }

    @Test func anAdoptedLoopRecordsItsWaitsAsTransitions() throws {
        let channel = try Channel(thresholdNs: 100 * Self.ms)
        let slot = freshSlot(channel)
        let thread = Thread()
        thread.wait(epollFive)
        thread.wait(epollFive)
        let (token, _) = thread.enter(epollFive)
        lagmon_waitcall_adopt(&thread.state, token, slot, 1, thread.now)
        // The shim's hot path: return = after-waiting, next entry = before-waiting.
        let woke = thread.now + 20 * Self.ms
        lagmon_probe_record_at(slot, LAGMON_ACTIVITY_AFTER_WAITING.rawValue, woke)
        let view = ChannelSlot(channel: channel, index: 0)
        #expect(view.snapshot() == LoopSnapshot(activity: .afterWaiting, sinceNs: woke))
        #expect(view.openBusySinceNs == woke)
        lagmon_probe_record_at(slot, LAGMON_ACTIVITY_BEFORE_WAITING.rawValue, woke + 300 * Self.ms)
        var cursor: UInt64 = 0
        #expect(
            view.drainStalls(cursor: &cursor).records == [
                StallRecord(startNs: woke, endNs: woke + 300 * Self.ms, activity: .afterWaiting)
            ])
    }

    @Test func closingTheLoopEndsItAndTheThreadMustQualifyAgain() throws {
        let channel = try Channel(thresholdNs: 100 * Self.ms)
        let slot = freshSlot(channel)
        let thread = Thread()
        thread.wait(epollFive)
        thread.wait(epollFive)
        let (token, _) = thread.enter(epollFive)
        lagmon_waitcall_adopt(&thread.state, token, slot, 1, thread.now)
        lagmon_probe_record_at(slot, LAGMON_ACTIVITY_AFTER_WAITING.rawValue, thread.now + Self.ms)
        // asyncio's loop.close(): the work after it is not a loop iteration, so no stall.
        lagmon_waitcall_end_loop(&thread.state, thread.now + 2 * Self.ms)
        let view = ChannelSlot(channel: channel, index: 0)
        #expect(view.snapshot() == LoopSnapshot(activity: .exit, sinceNs: thread.now + 2 * Self.ms))
        #expect(view.snapshot().activity.isIdle)
        #expect(thread.state.mode == LAGMON_WAITCALL_COUNTING.rawValue)
        #expect(thread.state.slot == slot, "the thread keeps its slot for its next loop")
        #expect(thread.wait(epollFive).qualified == false)
        #expect(thread.wait(epollFive).qualified == false)
        #expect(thread.wait(epollFive).qualified == true)
    }

    @Test func aSlotTakenOverByTheCFObserverOrAParentIsNotWritten() throws {
        let channel = try Channel(thresholdNs: 100 * Self.ms)
        let slot = freshSlot(channel)
        var state = lagmon_waitcall_thread()
        state.slot = slot
        #expect(lagmon_waitcall_owns_slot(&state, 42) != 0)
        #expect(lagmon_waitcall_owns_slot(&state, 43) == 0, "a fork's child")
        slot.pointee.kind = LAGMON_OBSERVER_CFRUNLOOP.rawValue
        #expect(lagmon_waitcall_owns_slot(&state, 42) == 0, "a CFRunLoop observer took it over")
    }

    @Test func everyParkOfATokioWorkerIsOneKeyButAThreadParkIsNot() {
        let worker = UInt32(LAGMON_WAITCALL_ROLE_TOKIO_WORKER.rawValue)
        let ordinary = UInt32(LAGMON_WAITCALL_ROLE_ORDINARY.rawValue)
        let park = lagmon_waitcall_key(UInt32(LAGMON_WAITCALL_PARK.rawValue), -1)
        // Its own condvar, the driver's, and the I/O driver's epoll_wait: one park.
        #expect(lagmon_waitcall_futex_key(worker, 0x5000, 3, 0) == park)
        #expect(lagmon_waitcall_futex_key(worker, 0x6000, 0, 0) == park)
        #expect(lagmon_waitcall_role_key(worker, epollFive) == park)
        // std's thread::park (a task blocking in a std channel) is not the worker's park.
        #expect(lagmon_waitcall_futex_key(worker, 0x5000, LAGMON_WAITCALL_STD_PARKED, 0) != park)
        // Any other thread: each futex and each epoll set its own key.
        #expect(lagmon_waitcall_futex_key(ordinary, 0x5000, 3, 1) != lagmon_waitcall_futex_key(ordinary, 0x6000, 3, 1))
        #expect(lagmon_waitcall_role_key(ordinary, epollFive) == epollFive)
        // Closing a descriptor never ends a futex or park loop, whatever the address.
        #expect(lagmon_waitcall_key_descriptor(lagmon_waitcall_futex_key(ordinary, 5, 0, 0)) == -1)
        #expect(lagmon_waitcall_key_descriptor(park) == -1)
        #expect(lagmon_waitcall_key_descriptor(epollFive) == 5)
    }

    @Test func aTokioWorkerSlotIsTheThreadsOwn() throws {
        let channel = try Channel(thresholdNs: 100 * Self.ms)
        let slot = freshSlot(channel)
        slot.pointee.kind = LAGMON_OBSERVER_TOKIO_WORKER.rawValue
        var state = lagmon_waitcall_thread()
        state.slot = slot
        #expect(lagmon_waitcall_owns_slot(&state, 42) != 0)
        #expect(lagmon_waitcall_owns_slot(&state, 43) == 0, "a fork's child")
    }

    /// tokio's blocking pool waits between closures only with a timeout, and re-locks its contended
    /// Mutex: its threads, named as the workers are, never become loops; a worker's minor parks
    /// count, and are idle once it is one.
    @Test func minorParksNeverMakeAWorkerButAreItsParks() {
        let worker = UInt32(LAGMON_WAITCALL_ROLE_TOKIO_WORKER.rawValue)
        let timed = lagmon_waitcall_futex_key(worker, 0x5000, 1, 1)
        let relock = lagmon_waitcall_futex_key(worker, 0x5008, LAGMON_WAITCALL_STD_CONTENDED, 0)
        let untimed = lagmon_waitcall_futex_key(worker, 0x6000, 1, 0)
        #expect(relock == timed)
        let blocking = Thread()
        for _ in 0..<5 {
            #expect(blocking.wait(timed).qualified == false)
            #expect(blocking.wait(relock).qualified == false)
        }
        let pool = Thread()
        #expect(pool.wait(timed).qualified == false)
        #expect(pool.wait(timed).qualified == false)
        #expect(pool.wait(untimed).qualified == true, "a third park, untimed")
        #expect(lagmon_waitcall_counted_key(timed) == untimed)
    }
}
