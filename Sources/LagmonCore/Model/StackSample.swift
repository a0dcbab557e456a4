/// How the unwind of one sample ended.
public enum UnwindOutcome: String, Codable, Sendable {
    /// It reached the thread's entry (the outermost frame): the stack is whole.
    case complete
    /// It stopped at the depth cap (128 frames).
    case truncated
    /// libunwind could not go further (missing unwind information, unreadable memory), or it
    /// followed junk: an address outside executable memory (StackPlausibility).
    case failed
}

/// The scheduler state of a thread, from the third field of /proc/<pid>/task/<tid>/stat.
public enum SchedulerState: String, Codable, Sendable {
    case running = "R"
    case sleeping = "S"
    case diskSleep = "D"
    case stopped = "T"
    case tracingStop = "t"
    case zombie = "Z"
    case dead = "X"
    case idle = "I"
    case parked = "P"
    case unknown = "?"
}

/// The system call a thread is blocked in (from /proc/<pid>/task/<tid>/syscall).
public struct SyscallInfo: Sendable, Equatable, Codable {
    /// The x86_64 system call number.
    public var number: Int
    /// Its name (`read`, `futex`, …), or `syscall_<n>` when unknown.
    public var name: String
    /// The six argument registers.
    public var arguments: [UInt64]
    /// What the first argument designates when it is a file descriptor: `pipe:[1234]`,
    /// `socket:[5678]`, a path. Nil when the call takes no descriptor or it vanished.
    public var descriptorTarget: String?

    public init(number: Int, name: String, arguments: [UInt64], descriptorTarget: String? = nil) {
        self.number = number
        self.name = name
        self.arguments = arguments
        self.descriptorTarget = descriptorTarget
    }
}

/// What /proc said about a thread at one instant (read just before it was paused).
public struct ThreadStateSample: Sendable, Equatable {
    /// Scheduler state.
    public var state: SchedulerState
    /// The system call it is blocked in; nil when running in user space (or unreadable).
    public var syscall: SyscallInfo?
    /// The kernel function it sleeps in (/proc/.../wchan), if any.
    public var wchan: String?
    /// Cumulative time spent runnable but waiting for a CPU (schedstat, second field).
    public var runDelayNs: UInt64
    /// Cumulative time on a CPU (schedstat, first field).
    public var onCPUNs: UInt64

    public init(state: SchedulerState, syscall: SyscallInfo?, wchan: String?, runDelayNs: UInt64, onCPUNs: UInt64) {
        self.state = state
        self.syscall = syscall
        self.wchan = wchan
        self.runDelayNs = runDelayNs
        self.onCPUNs = onCPUNs
    }
}

/// One raw stack sample of one thread, before symbolization.
public struct StackSample: Sendable, Equatable {
    /// When the thread was paused (channel clock).
    public var timestampNs: UInt64
    /// The sampled thread.
    public var tid: Int32
    /// Instruction addresses, innermost (the executing function) first. Return addresses are
    /// kept as unwound; symbolizers look up `address - 1` for every frame but the first.
    public var addresses: [UInt64]
    /// How the unwind ended.
    public var outcome: UnwindOutcome
    /// How long the thread was stopped for this sample.
    public var pauseNs: UInt64
    /// Time spent unwinding from the copied stack, after the thread was resumed.
    public var unwindNs: UInt64
    /// The thread's state just before the pause.
    public var state: ThreadStateSample?
    /// The interpreter's frames (Python), innermost first, read while the thread was stopped;
    /// empty when it runs no interpreted code.
    public var interpreterFrames: [InterpreterFrame] = []
    /// The part of `pauseNs` spent reading `interpreterFrames`; nil when the process has no
    /// interpreter lagmon reads.
    public var interpreterReadNs: UInt64?
    /// The system call the thread was in when it stopped (its registers, not /proc); nil when it
    /// was running in user space. A /proc-watched loop stopped in its wait call was no longer
    /// stalled: such a sample is not evidence of the stall.
    public var syscallAtStop: Int?

    public init(
        timestampNs: UInt64, tid: Int32, addresses: [UInt64], outcome: UnwindOutcome, pauseNs: UInt64,
        unwindNs: UInt64, state: ThreadStateSample?
    ) {
        self.timestampNs = timestampNs
        self.tid = tid
        self.addresses = addresses
        self.outcome = outcome
        self.pauseNs = pauseNs
        self.unwindNs = unwindNs
        self.state = state
    }
}

/// A sample after symbolization: frames innermost first.
public struct ResolvedSample: Sendable, Equatable {
    /// The raw sample.
    public var sample: StackSample
    /// One frame per address, innermost first.
    public var frames: [Frame]
    /// The file mappings holding the addresses (each once).
    public var images: [ImageMapping]

    public init(sample: StackSample, frames: [Frame], images: [ImageMapping] = []) {
        self.sample = sample
        self.frames = frames
        self.images = images
    }
}
