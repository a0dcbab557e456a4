import CLagmonShared
import Glibc
import LagmonCore
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

    @Test func theChannelCannotBeResized() throws {
        let channel = try Channel(thresholdNs: 50_000_000)
        #expect(ftruncate(channel.fileDescriptor, 4096) == -1 && errno == EPERM)
        #expect(ftruncate(channel.fileDescriptor, off_t(channel.size) * 2) == -1 && errno == EPERM)
    }
}
