import CLagmonLinux
import CLagmonShared
import Glibc
import LagmonCore

/// One waiter on a wake-up word of the channel (a slot's `wake_sequence`, the header's
/// `discovery_sequence`): a post adds one to the word; the waiter keeps the value it last saw in
/// its own memory and sleeps while the word still holds it.
///
/// The target can write the word, so nothing it writes is trusted: any change only ends a wait
/// early, every futex error is a plain result, and every wait ends by its deadline. (glibc's
/// semaphores, which the channel held before, abort the waiting process on a futex word that
/// makes no sense.) One thread waits on a value; any thread may post.
struct ChannelWakeup {
    /// The word, in the channel's mapping (kept alive by whoever owns the channel). Not
    /// Sendable: the waiter keeps it to itself (a watchdog's thread-owned state, the channel's lock).
    let word: UnsafeMutablePointer<UInt32>
    /// The word's value when the last wait returned: posts up to it are consumed.
    private var seen: UInt32

    /// How long the waiter naps when the kernel refuses a futex wait outright, instead of
    /// retrying at once (not expected: the word is aligned and lagmon's own mapping is sealed).
    static let refusedNapNs: UInt64 = 1_000_000

    init(word: UnsafeMutablePointer<UInt32>) {
        self.word = word
        seen = lagmon_load_u32(word)
    }

    /// Sleeps until a post newer than the last one seen, or until `deadlineNs` (absolute
    /// CLOCK_MONOTONIC), or until `cancelled` says so. Returns true when posted (or the word
    /// changed for any other reason, or cancelled).
    ///
    /// `cancelled` is lagmon's own word, read before every sleep and after every wake-up: a post
    /// can be lost in the word, where the target can make one land on the value the waiter last
    /// saw (it wrote one less: a soak's watchdog so slept through its stop, towards a deadline
    /// 334 days away that the target had forged). A poster that sets it first and then posts
    /// ends the wait: the post's futex wake reaches a waiter already asleep, and one not yet
    /// asleep reads it before sleeping, unless the target turned that very post back into the
    /// value the waiter is about to sleep on; so a poster that must end the wait posts again
    /// until it has (`Watchdog.stop()`).
    mutating func wait(untilMonotonicNs deadlineNs: UInt64, cancelled: () -> Bool = { false }) -> Bool {
        while true {
            if cancelled() { return true }
            let current = lagmon_load_u32(word)
            if current != seen {
                seen = current
                return true
            }
            let nowNs = MonotonicClock.nowNs()
            guard nowNs < deadlineNs else { return false }
            switch lagmon_futex_wait_until(word, current, deadlineNs) {
            case 0, EAGAIN, EINTR, ETIMEDOUT: continue
            default: Self.nap(untilNs: min(deadlineNs, nowNs + Self.refusedNapNs))
            }
        }
    }

    /// Forgets every post made so far (one still on its way wakes the next wait early, which
    /// only costs the waiter one more look).
    mutating func consume() { seen = lagmon_load_u32(word) }

    /// Posts a wake-up (lagmon's own: stopping a watchdog, ending discovery).
    func post() { lagmon_channel_post(word) }

    private static func nap(untilNs deadlineNs: UInt64) {
        var deadline = timespec(tv_sec: Int(deadlineNs / 1_000_000_000), tv_nsec: Int(deadlineNs % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil) == EINTR {}
    }
}
