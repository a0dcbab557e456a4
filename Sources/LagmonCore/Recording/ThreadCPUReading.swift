/// One thread's cumulative CPU time at one instant (from /proc/<pid>/task/<tid>/stat).
public struct ThreadCPUReading: Sendable, Equatable {
    /// Kernel thread id.
    public var tid: Int32
    /// Thread name (comm).
    public var name: String
    /// Scheduler state.
    public var state: SchedulerState
    /// User plus system time since the thread started, in clock ticks.
    public var cpuTicks: UInt64

    public init(tid: Int32, name: String, state: SchedulerState, cpuTicks: UInt64) {
        self.tid = tid
        self.name = name
        self.state = state
        self.cpuTicks = cpuTicks
    }
}
