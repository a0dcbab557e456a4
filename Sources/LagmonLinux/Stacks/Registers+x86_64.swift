import Glibc

#if !arch(x86_64)
    #error(
        "lagmon supports Linux on x86_64 only (README); a port adds the architecture's registers in a file like this one"
    )
#endif

/// The x86_64 registers the sampler reads from a stopped thread (PTRACE_GETREGS).
extension user_regs_struct {
    /// The stack pointer (`rsp`).
    var stackPointer: UInt64 { rsp }
    /// The instruction pointer (`rip`): the executing instruction, the innermost frame.
    var instructionPointer: UInt64 { rip }
    /// The system call the thread was stopped in (`orig_rax`), nil when it was stopped in user
    /// space (the kernel sets `orig_rax` to -1 outside a call).
    var syscallNumber: Int? {
        let number = Int64(bitPattern: orig_rax)
        return number >= 0 && number <= Int64(Int32.max) ? Int(number) : nil
    }
    /// Whether the call in `syscallNumber` had already finished when the stop came: its result
    /// (`rax`) is not that of a sleep the stop interrupted (-EINTR, or the -ERESTART* codes,
    /// 512 to 516, with which the kernel restarts it). A wait call that finished is over: the
    /// thread was woken and only waited for a CPU to return from it.
    var syscallFinished: Bool {
        let result = Int64(bitPattern: rax)
        return result != -Int64(EINTR) && !(-516 ... -512).contains(result)
    }
    /// The epoll wait, socket call, signal wait or io_uring wait the thread stopped on its way out of, broken by
    /// the stop (-EINTR), which the kernel would not restart by itself (`InterruptedWait`); nil
    /// for anything else. System V argument registers: rdi (the first: the socket calls'
    /// descriptor), rsi, rdx (the third: `rt_sigtimedwait`'s timeout), r10 (the fourth: the epoll
    /// waits' timeout), r8, r9.
    var interruptedWait: InterruptedWait? {
        guard Int64(bitPattern: rax) == -Int64(EINTR) else { return nil }
        switch Int64(bitPattern: orig_rax) {
        case Self.epollWait, Self.epollPwait:
            // int timeout, in milliseconds: negative means none.
            let timeout = Int32(truncatingIfNeeded: r10)
            return .epoll(timeoutMilliseconds: timeout < 0 ? nil : timeout)
        case Self.epollPwait2:
            // const struct timespec *timeout: NULL means none.
            return r10 == 0 ? .epoll(timeoutMilliseconds: nil) : .epollTimespec(address: r10)
        case let number where Self.socketReceives.contains(number):
            return .socket(descriptor: Int32(truncatingIfNeeded: rdi), direction: .receive)
        case let number where Self.socketSends.contains(number):
            return .socket(descriptor: Int32(truncatingIfNeeded: rdi), direction: .send)
        case Self.rtSigtimedwait:
            // const struct timespec *timeout: NULL means none (sigwaitinfo).
            return .signalWait(timeoutAddress: rdx == 0 ? nil : rdx)
        case Self.ioUringEnter:
            return interruptedRingWait
        default:
            return nil
        }
    }

    /// An `io_uring_enter` that waited for completions (`IORING_ENTER_GETEVENTS` in its flags, the
    /// fourth argument) as `InterruptedWait.ringWait`; nil for one that did not wait or whose
    /// argument is a registered wait region (`IORING_ENTER_EXT_ARG_REG`), which lagmon does not
    /// read. It returns EINTR only when it submitted nothing, so a restart repeats no submission.
    private var interruptedRingWait: InterruptedWait? {
        let flags = UInt32(truncatingIfNeeded: r10)
        guard flags & Self.ioUringGetEvents != 0, flags & Self.ioUringExtArgReg == 0 else { return nil }
        // An absolute timeout (IORING_ENTER_ABS_TIMER) restarts as it is, as clock_nanosleep's does.
        guard flags & Self.ioUringExtArg != 0, flags & Self.ioUringAbsTimer == 0, r8 != 0 else {
            return .ringWait(argumentAddress: nil)
        }
        // const struct io_uring_getevents_arg *argp (the fifth argument).
        return .ringWait(argumentAddress: r8)
    }

    /// These registers with the interrupted call's result replaced by -ERESTARTNOHAND: on its
    /// way back to the program the kernel then restarts the call when no signal handler runs,
    /// and returns EINTR when one does, exactly as for `select` (so a real signal that arrived
    /// meanwhile still interrupts the wait, as it would have without lagmon; one ignored does
    /// not). With `timeoutMilliseconds` the epoll wait restarts waiting that long: the fourth
    /// argument register is rewritten (an `epoll_pwait2` restarts as an `epoll_pwait`, whose
    /// arguments are the same but the fourth, an int), which the program cannot tell: r10 is
    /// caller-saved across the C library's wrapper, which does not read it after the call.
    func restarting(timeoutMilliseconds: Int32?) -> user_regs_struct {
        var registers = self
        registers.rax = UInt64(bitPattern: -Self.restartNoHandler)
        if let timeoutMilliseconds {
            if Int64(bitPattern: orig_rax) == Self.epollPwait2 { registers.orig_rax = UInt64(Self.epollPwait) }
            registers.r10 = UInt64(UInt32(bitPattern: timeoutMilliseconds))
        }
        return registers
    }

    /// These registers with the interrupted call's result replaced by -`error`: the call fails
    /// as it fails when its timeout expires (EAGAIN for a socket call or a signal wait, ETIME for
    /// an io_uring wait: `InterruptedWait.timeoutError`).
    func timingOut(with error: Int32) -> user_regs_struct {
        var registers = self
        registers.rax = UInt64(bitPattern: -Int64(error))
        return registers
    }

    /// The timed wait in these registers as `WaitHistory` recognises it again: its call, its
    /// first argument (an epoll or socket descriptor, a signal wait's set) and
    /// `timeoutMilliseconds`.
    func restartedWaitCall(timeoutMilliseconds: Int32) -> RestartedWait.Call {
        RestartedWait.Call(number: orig_rax, descriptor: rdi, timeoutMilliseconds: timeoutMilliseconds)
    }

    /// The epoll waits' system call numbers on x86_64 (`epoll_pwait2` since Linux 5.11).
    static let epollWait: Int64 = 232
    static let epollPwait: Int64 = 281
    static let epollPwait2: Int64 = 441
    /// Calls that wait by a socket's SO_RCVTIMEO and return EINTR when a stop breaks them (on
    /// a socket; docs/stops.md): read, readv, accept, recvfrom, recvmsg, accept4, recvmmsg.
    static let socketReceives: Set<Int64> = [0, 19, 43, 45, 47, 288, 299]
    /// Calls that wait by a socket's SO_SNDTIMEO and return EINTR when a stop breaks them before
    /// they sent anything: write, writev, sendto, sendmsg, sendmmsg. (connect waits by it too,
    /// but cannot be restarted unseen: a TCP connect restarted mid-handshake that then times out
    /// returns EALREADY, not the EINPROGRESS of the first call: left alone, docs/stops.md.)
    static let socketSends: Set<Int64> = [1, 20, 44, 46, 307]
    /// `rt_sigtimedwait` (`sigtimedwait`, `sigwaitinfo`), which returns EINTR when a stop breaks
    /// it, timed or not, and EAGAIN when its timeout expires.
    static let rtSigtimedwait: Int64 = 128
    /// `io_uring_enter` (since Linux 5.1) and the flags lagmon reads (include/uapi/linux/io_uring.h):
    /// IORING_ENTER_GETEVENTS, IORING_ENTER_EXT_ARG, IORING_ENTER_ABS_TIMER (6.12),
    /// IORING_ENTER_EXT_ARG_REG (6.13).
    static let ioUringEnter: Int64 = 426
    static let ioUringGetEvents: UInt32 = 1 << 0
    static let ioUringExtArg: UInt32 = 1 << 3
    static let ioUringAbsTimer: UInt32 = 1 << 5
    static let ioUringExtArgReg: UInt32 = 1 << 6
    /// The kernel's ERESTARTNOHAND (include/linux/errno.h; not visible to programs).
    static let restartNoHandler: Int64 = 514

    /// Bytes below the stack pointer a leaf function may use without moving it: the System V
    /// x86_64 ABI's red zone.
    static let redZoneBytes: UInt64 = 128
}
