import CLagmonLinux
import CLagmonShared
import Glibc
import LagmonCore
import Synchronization
import Testing

@testable import LagmonLinux

/// The wake-up words live in memory the target writes: whatever they hold, a wait ends by its
/// deadline or early, and never traps (glibc's semaphores aborted on such words).
struct ChannelWakeupTests {
    @Test(arguments: [0x7fff, 0xffff_ffff, 0x8000_0000, 0] as [UInt32])
    func aWordTheTargetWroteOnlyEndsAWaitEarly(value: UInt32) throws {
        let channel = try Channel(thresholdNs: 50_000_000)
        let slot = ChannelSlot(channel: channel, index: 0)
        var wakeup = slot.wakeup()
        wakeup.word.pointee = value  // as the target writes it, behind lagmon's back
        let startNs = MonotonicClock.nowNs()
        let woken = wakeup.wait(untilMonotonicNs: startNs + 20_000_000)
        #expect(woken == (value != 0), "a changed word wakes it")
        // Seen now: the next wait sleeps to its deadline, whatever the word holds.
        let wokenAgain = wakeup.wait(untilMonotonicNs: MonotonicClock.nowNs() + 20_000_000)
        #expect(!wokenAgain)
        #expect(MonotonicClock.nowNs() - startNs >= 20_000_000)
    }

    @Test func aPostFromAnotherThreadWakesTheWaiter() throws {
        let channel = try Channel(thresholdNs: 50_000_000)
        let slot = ChannelSlot(channel: channel, index: 0)
        var wakeup = slot.wakeup()
        let poster = try JoinableThread(name: "poster") { slot.post() }
        // Generous: the post may come late on a loaded machine; it must come before the deadline.
        let posted = wakeup.wait(untilMonotonicNs: MonotonicClock.nowNs() + 60_000_000_000)
        #expect(posted)
        poster.join()
    }

    /// The target can turn lagmon's post back into the value the waiter sleeps on (it wrote one
    /// less first): the futex wake still comes, and the waiter, cancelled, returns instead of
    /// sleeping on to its deadline (a soak's watchdog slept through its stop so, its deadline
    /// forged 334 days ahead).
    @Test func aCancelledWaitEndsThoughTheTargetUndidThePost() throws {
        let channel = try Channel(thresholdNs: 50_000_000)
        let slot = ChannelSlot(channel: channel, index: 0)
        let word = slot.wakeup().word
        let cancelled = Atomic<Bool>(false)
        let waiterTid = Atomic<Int32>(0)
        let returned = Atomic<Bool>(false)
        let waiter = try JoinableThread(name: "waiter") {
            var wakeup = slot.wakeup()
            waiterTid.store(lagmon_gettid(), ordering: .releasing)
            _ = wakeup.wait(untilMonotonicNs: MonotonicClock.nowNs() + 3_600_000_000_000) {
                cancelled.load(ordering: .sequentiallyConsistent)
            }
            returned.store(true, ordering: .releasing)
        }
        // Until the waiter sleeps in the futex call (202), however long a loaded machine takes.
        while waiterTid.load(ordering: .acquiring) == 0 || !Self.inFutexWait(waiterTid.load(ordering: .acquiring)) {
            usleep(1_000)
        }
        let seen = lagmon_load_u32(word)
        word.pointee = seen &- 1  // the target, behind lagmon's back: no wake-up
        cancelled.store(true, ordering: .sequentiallyConsistent)
        slot.post()  // lands on `seen`
        let joined = waiter.join(withinNs: 30_000_000_000)
        #expect(joined, "the waiter slept on past its cancellation")
        if !joined {
            word.pointee = seen &+ 7  // let it go, so the test process can end
            slot.post()
            waiter.join()
        }
        let didReturn = returned.load(ordering: .acquiring)
        #expect(didReturn)
    }

    /// Whether thread `tid` of this process is in a futex call now.
    static func inFutexWait(_ tid: Int32) -> Bool {
        guard let bytes = ProcFS.readFile("/proc/self/task/\(tid)/syscall") else { return false }
        return String(decoding: bytes, as: UTF8.self).hasPrefix("202 ")
    }

    @Test func theChannelCannotBeResized() throws {
        let channel = try Channel(thresholdNs: 50_000_000)
        #expect(ftruncate(channel.fileDescriptor, 4096) == -1 && errno == EPERM)
        #expect(ftruncate(channel.fileDescriptor, off_t(channel.size) * 2) == -1 && errno == EPERM)
    }
}
