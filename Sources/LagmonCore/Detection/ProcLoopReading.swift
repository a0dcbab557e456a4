/// One reading of a loop thread's /proc files (`syscall`, `schedstat`) by the /proc probe:
/// whether the thread sat in an event-loop wait call, and when the reading was taken.
public struct ProcLoopReading: Sendable, Equatable {
    /// What the thread was doing, as far as /proc can tell.
    public enum State: Sendable, Equatable {
        /// Asleep in an event-loop wait call (`SyscallTable.isEventLoopWait`): between iterations.
        case waiting
        /// Anything else: running, runnable, or blocked in another call (`read`, `futex`, …).
        case busy
        /// The thread has exited.
        case gone
        /// In `restart_syscall`: still in the call a stop interrupted (lagmon's stack samples
        /// stop the thread), so in whatever state the previous reading saw.
        case resuming
    }

    /// The thread's state.
    public var state: State
    /// When the read of the `syscall` file began (session clock). The kernel took the state at
    /// some instant between `beganNs` and `endedNs`.
    public var beganNs: UInt64
    /// When it ended (session clock).
    public var endedNs: UInt64
    /// The thread's `schedstat` right after; nil when it could not be read.
    public var schedstat: ProcSchedstat?

    public init(state: State, beganNs: UInt64, endedNs: UInt64, schedstat: ProcSchedstat? = nil) {
        self.state = state
        self.beganNs = beganNs
        self.endedNs = max(endedNs, beganNs)
        self.schedstat = schedstat
    }

    /// The state the `syscall` file's contents stand for. A thread that has exited but is not
    /// reaped yet reads as outside any call with a zero stack pointer and program counter
    /// (`-1 0x0 0x0`, the kernel has freed its stack): that is `gone`, not busy.
    public static func state(of syscall: ProcSyscall) -> State {
        switch syscall {
        case .running: .busy
        case .notInSyscall(let stackPointer, let programCounter):
            stackPointer == 0 && programCounter == 0 ? .gone : .busy
        case .inSyscall(let number, _, _, _): state(ofCall: number)
        }
    }

    /// The state straight from the `syscall` file's text, read 1000 times a second: only the
    /// call number is parsed (the arguments are not needed), with the same outcome as
    /// `state(of: ProcSyscall.parse(text))` on every line that parses. Nil for text that does not
    /// start like a `syscall` line.
    public static func state(ofSyscallText text: ArraySlice<UInt8>) -> State? {
        if text.elementsEqual(runningText) { return .busy }
        let negative = text.first == UInt8(ascii: "-")
        let digits = text.dropFirst(negative ? 1 : 0).prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        guard !digits.isEmpty, digits.count <= 10, digits.endIndex < text.endIndex,
            text[digits.endIndex] == ProcText.space, let number = ProcText.decimal(digits)
        else { return nil }
        if negative { return text[digits.endIndex...].elementsEqual(freedStackText) ? .gone : .busy }
        return number <= Int32.max ? state(ofCall: Int(number)) : .busy
    }

    /// The state of a thread in `restart_syscall` from its `wchan` (the kernel function it sleeps
    /// in): `waiting` inside poll's or select's wait (`poll_schedule_timeout`, `do_select`,
    /// `do_sys_poll`, `core_sys_select`), else `resuming`. The restarted call is not in the
    /// `syscall` file, so without this a stall that ended just before a sample interrupted the
    /// loop's next wait would last until that wait returned.
    public static func state(ofRestartedWaitChannel text: ArraySlice<UInt8>) -> State {
        let name = String(decoding: text.prefix { $0 != UInt8(ascii: ".") && $0 != ProcText.newline }, as: UTF8.self)
        return restartedWaitFunctions.contains(name) ? .waiting : .resuming
    }

    private static let restartedWaitFunctions: Set<String> = [
        "poll_schedule_timeout", "do_sys_poll", "do_select", "core_sys_select", "do_restart_poll",
    ]

    /// The state of a thread a stack sample stopped inside system call `call` (its registers;
    /// nil: in user space, busy), `waitChannel` its `wchan` read just before the stop. A stop
    /// in `restart_syscall` is waiting when the thread slept in poll's or select's wait right
    /// before it (an earlier stop interrupted that wait; a new wait would show its own call).
    public static func state(atStopIn call: Int?, waitChannelBefore waitChannel: String?) -> State {
        guard let call else { return .busy }
        guard call == SyscallTable.restartNumber else { return state(ofCall: call) }
        return waitChannel.map { state(ofRestartedWaitChannel: Array($0.utf8)[...]) } ?? .resuming
    }

    /// Whether a thread that /proc shows in `sample` sleeps in its loop's wait, so that
    /// `lagmon attach`'s sampler leaves it unstopped (`StackSampler.sparesWaitingThreads`): asleep
    /// (`S`) in an event-loop wait call, or in `restart_syscall` inside poll's or select's wait
    /// (an earlier stop broke that wait). Runnable in a wait call is no wait (its timeout fired
    /// or its events came), nor is any other call or user space.
    public static func isAsleepInWait(_ sample: ThreadStateSample) -> Bool {
        guard sample.state == .sleeping, let call = sample.syscall?.number else { return false }
        return state(atStopIn: call, waitChannelBefore: sample.wchan) == .waiting
    }

    /// The state of a thread a stack sample stopped inside system call `call`, as a reading of its
    /// loop: `state(atStopIn:waitChannelBefore:)`, except that a wait call is no wait any more
    /// when it had returned (`callFinished`: its events came, or its timeout fired, while the
    /// thread waited for a CPU) or when the thread was runnable (`R`) in it just before the stop
    /// (`schedulerStateBefore`): its wait was over then, and a stop landing on a select or poll
    /// whose timeout fired makes it return -ERESTARTNOHAND (a signal is pending), so the stop
    /// looks like an interrupted sleep. As a reading it would end the busy period the run-queue
    /// wait began and split one busy period into two stalls.
    public static func state(
        atStopIn call: Int?, waitChannelBefore waitChannel: String?, callFinished: Bool,
        schedulerStateBefore: SchedulerState?
    ) -> State {
        let state = state(atStopIn: call, waitChannelBefore: waitChannel)
        guard state == .waiting, callFinished || schedulerStateBefore == .running else { return state }
        return .busy
    }

    /// The state of a thread in system call `number`: `waiting` in an event-loop wait, `resuming`
    /// in `restart_syscall`, else `busy`.
    public static func state(ofCall number: Int) -> State {
        if number == SyscallTable.restartNumber { return .resuming }
        return SyscallTable.isEventLoopWait(number) ? .waiting : .busy
    }

    /// Whether this reading could have been taken while a stack sample held the thread in a
    /// ptrace stop, given a count of stop windows read before and after it (odd: a window is
    /// open; see `ProcLoopWatcher.samplerStopWindow`): a window was open at either end, or one
    /// opened and closed in between. Only a reading in a wait call is in doubt then (a stopped
    /// thread's `syscall` file shows the call it stopped in, returned or not); one outside a
    /// call, or in another call, is busy either way.
    public func mayShowAStop(stopWindowsBefore before: UInt64, after: UInt64) -> Bool {
        state == .waiting && (before % 2 == 1 || after != before)
    }

    private static let runningText = Array("running\n".utf8)
    private static let freedStackText = Array(" 0x0 0x0\n".utf8)
}
