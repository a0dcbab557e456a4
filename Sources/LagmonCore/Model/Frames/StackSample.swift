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
    /// The frames of HotSpot's interpreter and the Java methods they ran; empty when the stack
    /// holds none (or the process is no JVM lagmon reads).
    public var interpretedJava: [InterpretedJavaFrame] = []
    /// The system call the thread was in when it stopped (its registers, not /proc); nil when it
    /// was running in user space. A /proc-watched loop stopped in its wait call was no longer
    /// stalled: such a sample is not evidence of the stall.
    public var syscallAtStop: Int?
    /// A sample of a thread that could not be stopped (uninterruptible sleep, `D`): only its
    /// /proc state, no stack. It counts for the diagnosis, not for stacks or sampling costs.
    public var isStateOnly = false
    /// Set on a busy period's first sample when its thread waited for a CPU: the machine's
    /// busiest other processes over the period (a /proc scan at its first such sample and at its
    /// end); nil otherwise.
    public var busiestOthers: [ProcessCPU]? {
        get { rare.first?.busiestOthers }
        set { updateRare { $0.busiestOthers = newValue } }
    }
    /// Set on a busy period's first sample: the thread's /proc state when its first sample was
    /// asked for, before any stop (`openingState`), and when the period ended (`closingState`).
    /// Contention is measured between them, however few samples the stall got: a thread starved
    /// of a CPU cannot get to its stop, and its schedstat counters move only when it runs.
    public var openingState: TimedThreadState? {
        get { rare.first?.openingState }
        set { updateRare { $0.openingState = newValue } }
    }
    public var closingState: TimedThreadState? {
        get { rare.first?.closingState }
        set { updateRare { $0.closingState = newValue } }
    }
    /// Set on a busy period's first sample: where the thread's major page faults landed from
    /// that sample to the period's end (perf's fault addresses), or why that was not measured;
    /// nil when it was not tried.
    public var majorFaultSites: MajorFaultSites? {
        get { rare.first?.majorFaultSites }
        set { updateRare { $0.majorFaultSites = newValue } }
    }
    /// The lock the thread waited on when it sat in `futex`, with its holder's stack; nil
    /// otherwise.
    public var lock: LockObservation? {
        get { rare.first?.lock }
        set { updateRare { $0.lock = newValue } }
    }
    /// Set when the target's memory could not be read in time (a read slept past its bound: a
    /// page behind a userfaultfd nobody answers, a stuck FUSE file) or a read of it was still
    /// under way: the sample holds only the registers' instruction pointer.
    public var memoryUnreadable = false
    /// The logical callers of the Swift async function at `addresses[asyncCallerIndex]`: the resume
    /// addresses of the functions that awaited it, innermost first, read from its async context
    /// chain (`AsyncCallerChain`); empty when the stack runs no async function.
    public var asyncCallers: [UInt64] = []
    /// The physical frame `asyncCallers` follow.
    public var asyncCallerIndex: Int?

    /// The fields set on few samples (a period's first, a lock wait), out of line: a long
    /// `lagmon attach` holds thousands of samples, each 704 bytes inline with them and 232
    /// without. At most one element; none while they are all nil.
    private var rare: [Rare] = []

    private struct Rare: Sendable, Equatable {
        var busiestOthers: [ProcessCPU]?
        var openingState: TimedThreadState?
        var closingState: TimedThreadState?
        var majorFaultSites: MajorFaultSites?
        var lock: LockObservation?
    }

    private mutating func updateRare(_ change: (inout Rare) -> Void) {
        var fields = rare.first ?? Rare()
        change(&fields)
        rare = fields == Rare() ? [] : [fields]
    }

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
