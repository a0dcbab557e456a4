/// A wait call that one of lagmon's stops broke: on its way back to the program with EINTR,
/// which it would not have seen without lagmon.
///
/// A ptrace interrupt stop wakes a sleeping thread like a signal does. The kernel restarts most
/// wait calls after it by itself, with the time left (`poll`, `ppoll`, `select`, `pselect6`,
/// `nanosleep`, `clock_nanosleep`, futex waits, and reads of sockets without a timeout return
/// an -ERESTART* code that the way back to user space turns into a restart); these do not, and
/// return EINTR (docs/stops.md has the measured table). Socket calls with SO_RCVTIMEO return EINTR
/// too and are left so: their timeout is not an argument, and a restart with the whole of it at
/// every stop of a stall would never end. Which registers say so is the
/// architecture's business (`Registers+x86_64.swift`); what to do about it is decided here.
enum InterruptedWait: Equatable {
    /// `epoll_wait` or `epoll_pwait` with its timeout in milliseconds, nil for none.
    case epoll(timeoutMilliseconds: Int32?)
    /// `epoll_pwait2` with a timeout: a `struct timespec` at this address in the program.
    case epollTimespec(address: UInt64)

    /// The timeout, in milliseconds, to restart a timed epoll wait with: the time left until
    /// `deadlineNs` (`WaitHistory.deadlineNs`), rounded up to a whole millisecond; none left is
    /// 0, which still returns the events that are ready. A wait whose start is unknown (nil:
    /// the thread was asleep before lagmon first saw it, as for `lagmon dump` of an idle loop)
    /// may have waited any part of its timeout: its time is taken as spent (0) rather than
    /// restarted whole, which stops every so often would make endless.
    static func timeLeftMilliseconds(deadlineNs: UInt64?, nowNs: UInt64) -> Int32 {
        guard let deadlineNs, deadlineNs > nowNs else { return 0 }
        return Int32(clamping: (deadlineNs - nowNs) / 1_000_000 + ((deadlineNs - nowNs) % 1_000_000 == 0 ? 0 : 1))
    }

    /// The nanoseconds in a `struct timespec` read from the program (untrusted: a negative or
    /// out-of-range field is nil, as the kernel refuses it with EINVAL).
    static func timespecNanoseconds(seconds: Int64, nanoseconds: Int64) -> UInt64? {
        guard seconds >= 0, (0..<1_000_000_000).contains(nanoseconds) else { return nil }
        let (product, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return UInt64.max }
        return product.addingReportingOverflow(UInt64(nanoseconds)).overflow
            ? UInt64.max : product + UInt64(nanoseconds)
    }
}
