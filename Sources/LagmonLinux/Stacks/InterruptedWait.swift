import Glibc

/// A wait call that one of lagmon's stops broke: on its way back to the program with EINTR,
/// which it would not have seen without lagmon.
///
/// A ptrace interrupt stop wakes a sleeping thread like a signal does. The kernel restarts most
/// wait calls after it by itself, with the time left (`poll`, `ppoll`, `select`, `pselect6`,
/// `nanosleep`, `clock_nanosleep`, futex waits, and reads of sockets without a timeout return
/// an -ERESTART* code that the way back to user space turns into a restart); these do not, and
/// return EINTR (docs/stops.md has the measured table). Socket calls with a timeout
/// (`SO_RCVTIMEO`, `SO_SNDTIMEO`) return EINTR too; their timeout is the socket's, not an
/// argument, so they restart with the whole of it while their time is not up, and fail with
/// EAGAIN, as the timeout would have, once it is (`socketCallResumes`); so does a timed
/// `rt_sigtimedwait`, whose timeout lagmon cannot shorten either (it lies in the program's memory,
/// which lagmon never writes), and an `io_uring_enter` wait with a relative timeout (failing
/// with ETIME, as its timeout makes it fail). Which registers say so is the
/// architecture's business (`Registers+x86_64.swift`); what to do about it is decided here.
enum InterruptedWait: Equatable {
    /// `epoll_wait` or `epoll_pwait` with its timeout in milliseconds, nil for none.
    case epoll(timeoutMilliseconds: Int32?)
    /// `epoll_pwait2` with a timeout: a `struct timespec` at this address in the program.
    case epollTimespec(address: UInt64)
    /// A read, receive, accept, write or send on descriptor `descriptor`, which waits by the
    /// socket's timeout in `direction` when it is a socket (`SocketTimeout`).
    case socket(descriptor: Int32, direction: SocketTimeout.Direction)
    /// `rt_sigtimedwait` with a timeout (a `struct timespec` at this address in the program), or
    /// without one (nil: `sigwaitinfo`).
    case signalWait(timeoutAddress: UInt64?)
    /// `io_uring_enter` waiting for completions: with its extended argument (a `struct
    /// io_uring_getevents_arg` at this address in the program, whose `ts` may point to a
    /// relative timeout), or without one (nil: no timeout, or an absolute one).
    case ringWait(argumentAddress: UInt64?)

    /// Whether the call restarts with its whole timeout, which lagmon cannot shorten: a socket
    /// call (the socket's timeout) or a timed signal wait (a timespec in the program's memory).
    /// Such a call ends by lagmon's deadline (`socketCallResumes`), and the next one found is a
    /// new call.
    var restartsWhole: Bool {
        switch self {
        case .socket, .signalWait(timeoutAddress: .some), .ringWait(argumentAddress: .some): true
        case .epoll, .epollTimespec, .signalWait(timeoutAddress: nil), .ringWait(argumentAddress: nil): false
        }
    }

    /// The error the call fails with when its own timeout expires, which lagmon gives it once
    /// its deadline has passed (`socketCallResumes`): ETIME for an io_uring wait, EAGAIN for the
    /// others that restart whole.
    var timeoutError: Int32 {
        if case .ringWait = self { return ETIME }
        return EAGAIN
    }

    /// Where the timeout pointer (`ts`) lies in a `struct io_uring_getevents_arg`: after
    /// `sigmask` (8 bytes), `sigmask_sz` and `min_wait_usec` (4 each).
    static let ringWaitTimeoutOffset: UInt64 = 16

    /// Whether a socket call (or a timed signal wait) a stop broke at `nowNs` is restarted (true)
    /// or fails with EAGAIN (false), given its deadline (`WaitHistory.socketDeadlineNs`). A
    /// restarted socket call waits the socket's whole timeout again (the kernel reads it anew), so it is restarted only
    /// while its deadline is ahead: it then ends at most one timeout after the deadline, however
    /// many stops land in it. Once the deadline has passed it fails as the timeout would have
    /// made it fail. A call found the first time (nil: its start is unknown) is restarted, its
    /// deadline a whole timeout from then: it may have waited any part of its timeout, and a
    /// socket timeout that ends early (a program may take it for a dead peer) is worse than one
    /// that ends late by at most the timeout, as a slow scheduler would make it.
    static func socketCallResumes(deadlineNs: UInt64?, nowNs: UInt64) -> Bool {
        guard let deadlineNs else { return true }
        return deadlineNs > nowNs
    }

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
