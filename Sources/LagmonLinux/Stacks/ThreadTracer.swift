import CLagmonLinux
import Glibc
import LagmonCore

/// ptrace control of one thread of the target: seize, stop briefly, read, detach.
///
/// All calls must come from the same lagmon thread (ptrace's tracer is a thread). Owns the
/// attachment: whatever fails, `detach()` leaves the thread running and untraced.
final class ThreadTracer {
    /// Why a thread could not be traced or stopped.
    enum Failure: Error, Equatable {
        /// ptrace is not allowed (EPERM): container without SYS_PTRACE, Yama ptrace_scope, another tracer.
        case notPermitted
        /// The thread exited.
        case gone
        /// The thread did not stop in time.
        case noStop
        /// The thread entered a group stop (SIGSTOP, ^Z): lagmon detached and left it stopped.
        case stoppedByJobControl
        /// Another errno.
        case other(Int32)
    }

    /// How long to wait for a requested stop before giving up on a sample.
    static let stopTimeoutNs: UInt64 = 20_000_000
    /// How long to poll for the stop before sleeping until it comes: a thread running on another
    /// CPU stops within microseconds; one that needs lagmon's CPU to stop needs lagmon asleep.
    static let stopSpinNs: UInt64 = 20_000

    let tid: pid_t
    private(set) var attached = false
    /// Set when a detach could not complete at once (the thread did not stop in time): the
    /// next stop of the thread, whenever it comes, detaches instead of resuming.
    private(set) var detaching = false
    /// A signal the thread was about to receive when it stopped; handed back on resume.
    private var pendingSignal: Int32 = 0
    /// The registers read in the current stop, if any (`registers()`).
    private var stoppedRegisters: user_regs_struct?

    init(tid: pid_t) {
        self.tid = tid
    }

    deinit {
        detach()
        // A thread still ours (it did not stop in time to detach) that died must not stay an
        // unreaped zombie. A live thread has nothing to reap: waiting for it would hold the
        // sampler for the whole bound (100 ms at every release, and every queued sample behind it).
        if attached && !Self.isAlive(tid) { reapExited() }
    }

    /// Attaches without stopping the thread.
    func seize() throws(Failure) {
        guard !attached else { return }
        if lagmon_ptrace_seize(tid) != 0 {
            let code = errno
            // An exiting thread (zombie) also refuses with EPERM: that is not a permission problem.
            if code == EPERM && !Self.isAlive(tid) { throw .gone }
            throw Self.failure(code)
        }
        attached = true
    }

    /// Stops the thread, runs `body` while it is stopped, and lets it go by detaching. Returns
    /// what `body` returned and how long the thread was stopped (from the stop request to the
    /// detach).
    ///
    /// The thread is not kept seized between stops: letting a seized thread go needs one more
    /// stop, and a stop that lands while the loop is back in its wait call breaks that call —
    /// epoll_wait returns EINTR to the target (Python 2.7's `epoll.poll` raises it), once per
    /// stall when the stall ends. Detaching from the stop it is already in costs no more than
    /// resuming. (A stop that still lands in a wait call the kernel would not restart is undone
    /// before the detach: `restartInterruptedWait()`.) A thread that does not stop in time
    /// detaches at the stop it owes (`serviceStops()`).
    ///
    /// A thread still owed an earlier stop (`detaching`: it did not stop in time, it was
    /// runnable but off the CPUs) is not asked again: this waits, bounded the same way, for the
    /// stop it owes, and the sample is taken there. (Refusing it instead lost every sample queued
    /// behind one late stop on a busy machine.)
    ///
    /// `poll` false sleeps at once instead of polling for `stopSpinNs` first: for a thread that
    /// last ran on the caller's CPU, which can only stop once the caller is off it.
    ///
    /// `history` says when the thread's current wait may have started (`WaitHistory`); it is
    /// updated with this stop. `readMemory` reads the program's memory within a bound (an
    /// `epoll_pwait2`'s timeout is a pointer); without it such a wait's time is taken as spent.
    func whileStopped<T>(
        poll: Bool = true, history: inout WaitHistory, readMemory: ((UInt64, Int) -> [UInt8])? = nil,
        _ body: () -> T
    ) throws(Failure) -> (T, pauseNs: UInt64) {
        // The history stays for a stop owed (it lands later; an older time only shortens the
        // wait); the reader goes with this call (it holds the caller).
        waitHistory = history
        self.readMemory = readMemory
        defer {
            self.readMemory = nil
            history = waitHistory
        }
        return try whileStopped(poll: poll, body)
    }

    /// `whileStopped` for a thread whose wait history is unknown or kept by the tracer.
    func whileStopped<T>(poll: Bool = true, _ body: () -> T) throws(Failure) -> (T, pauseNs: UInt64) {
        let requestedAt: UInt64
        let spinNs = poll ? Self.stopSpinNs : 0
        if detaching {
            guard attached else { throw .gone }
            requestedAt = MonotonicClock.nowNs()
            try waitForStop(spinNs: spinNs)
        } else {
            try serviceStops()
            requestedAt = MonotonicClock.nowNs()
            if lagmon_ptrace_interrupt(tid) != 0 { throw Self.failure(errno) }
            do {
                try waitForStop(spinNs: spinNs)
            } catch .noStop {
                detaching = true
                throw .noStop
            }
        }
        let result = body()
        finishDetach()
        return (result, MonotonicClock.nowNs() - requestedAt)
    }

    /// Reads the stopped thread's general registers.
    func registers() -> user_regs_struct? {
        var registers = user_regs_struct()
        guard lagmon_ptrace_getregs(tid, &registers) == 0 else { return nil }
        stoppedRegisters = registers
        return registers
    }

    /// Wait calls that a stop of lagmon's broke and that were restarted (or, for a socket call
    /// whose time was up, failed with EAGAIN), so the program never saw the EINTR
    /// (`restartInterruptedWait()`).
    private(set) var restartedWaits = 0
    /// The timeout the last restarted timed wait was given, in milliseconds (tests read it).
    private(set) var lastRestartTimeoutMilliseconds: Int32?
    /// When the thread's current wait may have started; updated at every stop.
    private(set) var waitHistory = WaitHistory()
    /// Reads the program's memory during the current `whileStopped`.
    private var readMemory: ((UInt64, Int) -> [UInt8])?

    /// Resumes the thread from any stop that happened since the last call (a signal arriving
    /// while traced stops the thread until the tracer lets it through).
    func serviceStops() throws(Failure) {
        guard attached else { return }
        // A seized thread that died is a zombie until reaped here, and holds its whole process
        // back from exiting (lagmon would wait for the target forever).
        if lagmon_reap_exited(tid) == 1 {
            attached = false
            throw .gone
        }
        var status: Int32 = 0
        while true {
            let result = lagmon_wait_for_stop(tid, &status)
            if result == 0 { return }
            if result < 0 {
                attached = false
                throw errno == ECHILD ? .gone : .other(errno)
            }
            if record(status) {
                leaveInGroupStop()
                throw .stoppedByJobControl
            }
            if detaching {
                finishDetach()
                return
            }
            resume()
        }
    }

    /// Detaches, leaving the thread running (or in the group stop it was put in). Never throws:
    /// a thread that is gone needs nothing. A thread that does not stop in time stays
    /// `attached` with `detaching` set: keep calling `serviceStops()` until it is not attached
    /// (and when lagmon's tracer thread exits, the kernel detaches whatever is left).
    func detach() {
        guard attached, !detaching else { return }
        detaching = true
        if lagmon_ptrace_interrupt(tid) != 0 {
            // ESRCH: not (or no longer) this thread's tracee. A live thread is simply not ours.
            // One that exited while traced is a zombie until reaped here, and its process cannot
            // finish exiting before: one not reapable within the bound stays attached
            // (detaching), so the sampler's servicing reaps it later.
            if Self.isAlive(tid) || reapExited() { attached = false }
            return
        }
        do {
            try waitForStop()
            finishDetach()
        } catch .noStop {
            return
        } catch {
            attached = false
        }
    }

    /// A seized thread that exited is a zombie until its tracer (this thread) reaps it, and its
    /// process cannot be reaped before: the target would never finish exiting. Waits at most
    /// 100 ms for a dying thread to become reapable.
    /// Returns false when the thread was still not reapable at the deadline.
    @discardableResult
    private func reapExited() -> Bool {
        let deadline = MonotonicClock.nowNs() + 100_000_000
        while lagmon_reap_exited(tid) == 0 {
            if MonotonicClock.nowNs() >= deadline { return false }
            sched_yield()
        }
        return true
    }

    /// Detaches from the stop the thread is in. ESRCH means it left that stop without lagmon:
    /// only SIGKILL does that (its process is exiting: another thread called exit_group). It is
    /// still lagmon's tracee then, and once it exits a zombie only lagmon can reap, which holds
    /// its whole process back from exiting: it stays `attached` and `detaching` for the
    /// sampler's servicing (`serviceStops()`) to reap. (Before, it was dropped as detached: the
    /// Swift concurrency fixture's pool thread, killed mid-sample, stayed a traced zombie and
    /// lagmon waited for its target for ever.)
    private func finishDetach() {
        restartInterruptedWait()
        stoppedRegisters = nil
        // Whatever wait the thread is in from here started (or restarted) now.
        waitHistory.noteAwake(at: MonotonicClock.nowNs())
        let detached = lagmon_ptrace_detach(tid, pendingSignal) == 0 || errno != ESRCH
        pendingSignal = 0
        attached = !detached
        detaching = !detached
    }

    private func resume() {
        stoppedRegisters = nil
        waitHistory.noteAwake(at: MonotonicClock.nowNs())
        _ = lagmon_ptrace_cont(tid, pendingSignal)
        pendingSignal = 0
    }

    /// Undoes the harm of lagmon's stop to a wait call the kernel does not restart (an epoll
    /// wait, a socket call with a timeout, a signal wait): it would return EINTR to the program (Python 2.7's
    /// `epoll.poll` raises it; many C loops exit on it). The sampler stops only busy threads,
    /// but one may enter its wait between the state read and the stop; `lagmon dump` stops
    /// sleeping ones. Called in the stop before the thread goes: the call is restarted as the
    /// kernel restarts `select`, with the time left for a timed epoll wait
    /// (`InterruptedWait.timeLeftMilliseconds`); a socket call or a timed signal wait whose time
    /// is up fails with EAGAIN
    /// instead (`InterruptedWait.socketCallResumes`). A signal that arrived meanwhile, handed back
    /// at the detach or pending, still interrupts a restarted call when it has a handler, as it
    /// would have.
    private func restartInterruptedWait() {
        guard let registers = stoppedRegisters ?? registers(), let wait = registers.interruptedWait else { return }
        let nowNs = MonotonicClock.nowNs()
        let resumed: (registers: user_regs_struct, restarted: RestartedWait?)?
        switch wait {
        case .epoll(let milliseconds):
            resumed = restartingEpoll(registers, timeoutNs: milliseconds.map { UInt64($0) * 1_000_000 }, nowNs: nowNs)
        case .epollTimespec(let address):
            resumed = restartingEpoll(registers, timeoutNs: timespecNanoseconds(at: address) ?? 0, nowNs: nowNs)
        case .socket(let descriptor, let direction):
            resumed = SocketTimeout.nanoseconds(tid: tid, descriptor: descriptor, direction: direction).map {
                resumingWholeTimeoutCall(registers, timeoutNs: $0, nowNs: nowNs)
            }
        case .signalWait(nil):
            resumed = (registers.restarting(timeoutMilliseconds: nil), nil)
        case .signalWait(let address?):
            resumed = timespecNanoseconds(at: address).map {
                resumingWholeTimeoutCall(registers, timeoutNs: $0, nowNs: nowNs)
            }
        case .ringWait(nil):
            resumed = (registers.restarting(timeoutMilliseconds: nil), nil)
        case .ringWait(let argument?):
            resumed = ringWaitTimeout(argumentAddress: argument).flatMap { timeout in
                // No timeout pointer (0): an untimed wait, restarted as it is.
                timeout == 0
                    ? (registers.restarting(timeoutMilliseconds: nil), nil)
                    : timespecNanoseconds(at: timeout).map {
                        resumingWholeTimeoutCall(
                            registers, timeoutNs: $0, nowNs: nowNs, timeoutError: wait.timeoutError)
                    }
            }
        }
        guard var resumedRegisters = resumed?.registers, lagmon_ptrace_setregs(tid, &resumedRegisters) == 0 else {
            return
        }
        let restarted = resumed?.restarted
        restartedWaits += 1
        lastRestartTimeoutMilliseconds = restarted?.call.timeoutMilliseconds
        if wait.restartsWhole {
            // A call failed with EAGAIN has ended: the next one found is a new call, whose
            // deadline must not be this one's (it would time out at once).
            waitHistory.restarted = restarted
        } else {
            waitHistory.restarted = restarted ?? waitHistory.restarted
        }
    }

    /// The registers that restart an epoll wait broken by the stop, with the time left of its
    /// `timeoutNs` (nil: none), and the restarted wait to recognise at a later stop.
    private func restartingEpoll(_ registers: user_regs_struct, timeoutNs: UInt64?, nowNs: UInt64) -> (
        registers: user_regs_struct, restarted: RestartedWait?
    ) {
        guard let timeoutNs else { return (registers.restarting(timeoutMilliseconds: nil), nil) }
        let call = registers.restartedWaitCall(timeoutMilliseconds: Int32(clamping: timeoutNs / 1_000_000))
        let deadline = waitHistory.deadlineNs(of: call, timeoutNs: timeoutNs, nowNs: nowNs)
        let left = InterruptedWait.timeLeftMilliseconds(deadlineNs: deadline, nowNs: nowNs)
        let restarting = registers.restarting(timeoutMilliseconds: left)
        return (
            restarting,
            RestartedWait(
                call: restarting.restartedWaitCall(timeoutMilliseconds: left), deadlineNs: deadline ?? nowNs,
                restartedAtNs: nowNs)
        )
    }

    /// The registers that resume a call broken by the stop whose timeout of `timeoutNs` lagmon
    /// cannot shorten (a socket call: the socket's, read by `SocketTimeout`; a timed signal wait:
    /// a timespec in the program): restarted (with the whole timeout, which the kernel reads
    /// again) while its deadline is ahead, failing with EAGAIN once it has passed. (The caller
    /// leaves the call with its EINTR when the timeout cannot be read.) A socket without the
    /// timeout (it was cleared meanwhile) restarts as the kernel restarts an untimed one.
    private func resumingWholeTimeoutCall(
        _ registers: user_regs_struct, timeoutNs: UInt64, nowNs: UInt64, timeoutError: Int32 = EAGAIN
    ) -> (registers: user_regs_struct, restarted: RestartedWait?) {
        guard timeoutNs > 0 else { return (registers.restarting(timeoutMilliseconds: nil), nil) }
        let call = registers.restartedWaitCall(timeoutMilliseconds: Int32(clamping: timeoutNs / 1_000_000))
        let deadline = waitHistory.socketDeadlineNs(of: call, timeoutNs: timeoutNs, nowNs: nowNs)
        guard InterruptedWait.socketCallResumes(deadlineNs: deadline, nowNs: nowNs) else {
            return (registers.timingOut(with: timeoutError), nil)
        }
        let (end, overflow) = nowNs.addingReportingOverflow(timeoutNs)
        return (
            registers.restarting(timeoutMilliseconds: nil),
            RestartedWait(call: call, deadlineNs: deadline ?? (overflow ? UInt64.max : end), restartedAtNs: nowNs)
        )
    }

    /// The timeout pointer (`ts`) of the `struct io_uring_getevents_arg` at `address` in the
    /// program; nil when it cannot be read within the bound.
    private func ringWaitTimeout(argumentAddress address: UInt64) -> UInt64? {
        let (field, overflow) = address.addingReportingOverflow(InterruptedWait.ringWaitTimeoutOffset)
        guard !overflow, let bytes = readMemory?(field, 8), bytes.count == 8 else { return nil }
        return bytes.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The `struct timespec` at `address` in the program, as nanoseconds; nil when it cannot be
    /// read within the bound or is invalid.
    private func timespecNanoseconds(at address: UInt64) -> UInt64? {
        guard let bytes = readMemory?(address, 16), bytes.count == 16 else { return nil }
        func field(_ offset: Int) -> Int64 {
            bytes[offset..<offset + 8].reversed().reduce(0) { $0 << 8 | Int64($1) }
        }
        return InterruptedWait.timespecNanoseconds(seconds: field(0), nanoseconds: field(8))
    }

    /// Waits (bounded) for the interrupt stop: polls for `spinNs`, then sleeps until the stop
    /// or the deadline. Stops for signals on the way are noted so the signal is delivered on resume.
    private func waitForStop(spinNs: UInt64 = ThreadTracer.stopSpinNs) throws(Failure) {
        let startNs = MonotonicClock.nowNs()
        let deadline = startNs + Self.stopTimeoutNs
        var status: Int32 = 0
        while true {
            let nowNs = MonotonicClock.nowNs()
            let result =
                nowNs - startNs < spinNs
                ? lagmon_wait_for_stop(tid, &status)
                : lagmon_wait_for_stop_within(tid, &status, deadline > nowNs ? deadline - nowNs : 0)
            if result == 1 {
                if record(status) {
                    leaveInGroupStop()
                    throw .stoppedByJobControl
                }
                return
            }
            if result < 0 {
                attached = false
                throw errno == ECHILD ? .gone : .other(errno)
            }
            if MonotonicClock.nowNs() >= deadline { throw .noStop }
        }
    }

    /// Keeps the signal of a signal-delivery stop (interrupt and group stops carry none to pass
    /// on). Returns true for a group stop, which only detaching leaves in place.
    private func record(_ status: Int32) -> Bool {
        let signal = status & 0x7f
        guard (status >> 8) == lagmon_ptrace_event_stop() else {
            pendingSignal = signal
            return false
        }
        return [SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU].contains(signal)
    }

    private func leaveInGroupStop() {
        _ = lagmon_ptrace_detach(tid, 0)
        attached = false
        detaching = false
        pendingSignal = 0
    }

    /// Whether `tid` exists and has not exited (zombie or dead).
    static func isAlive(_ tid: pid_t) -> Bool {
        guard let bytes = ProcFS.readFile("/proc/\(tid)/stat"), let stat = ProcTaskStat.parse(bytes) else {
            return false
        }
        return stat.state != .zombie && stat.state != .dead
    }

    private static func failure(_ code: Int32) -> Failure {
        switch code {
        case EPERM: .notPermitted
        case ESRCH: .gone
        default: .other(code)
        }
    }
}
