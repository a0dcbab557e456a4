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
    /// The kernel stack's functions, innermost first (`/proc/…/stack`, root only), read only for
    /// a thread in uninterruptible sleep (`D`); nil otherwise.
    public var kernelStack: [String]?
    /// Major page faults of the thread so far (its stat's `majflt`); nil when unread.
    public var majorFaults: UInt64?
    /// The CPU the thread last ran on, or waits for (its stat's `processor`); nil when unread.
    public var lastCPU: Int32?

    public init(state: SchedulerState, syscall: SyscallInfo?, wchan: String?, runDelayNs: UInt64, onCPUNs: UInt64) {
        self.state = state
        self.syscall = syscall
        self.wchan = wchan
        self.runDelayNs = runDelayNs
        self.onCPUNs = onCPUNs
    }
}
