/// One thread in a `ProcessDump`.
public struct ThreadDump: Codable, Sendable, Equatable {
    /// What the thread was doing when its stack was taken.
    public enum Activity: String, Codable, Sendable {
        /// Asleep in an event-loop wait call (`epoll_wait`, `poll`, `select` and variants): idle.
        case waiting
        /// On a CPU or runnable, in its own code (no system call): busy.
        case busy
        /// In another system call (`futex`, `read`, `nanosleep` …).
        case blocked
        /// Stopped by a signal or a debugger.
        case stopped
        /// Gone before it could be read.
        case gone
    }

    /// The thread id.
    public var tid: Int32
    /// Its name (comm).
    public var name: String
    /// Whether it is the process's main thread.
    public var isMain: Bool
    /// What it was doing.
    public var activity: Activity
    /// The scheduler state letter of /proc (`R`, `S`, `D`, `T`, `t` …).
    public var schedulerState: String
    /// The system call it was in (`epoll_wait`, `futex`); nil when it ran its own code.
    public var syscall: String?
    /// What the call's file descriptor designates (`anon_inode:[eventpoll]`, a path), when it takes one.
    public var descriptor: String?
    /// The kernel function it slept in (/proc wchan), when the kernel says.
    public var wchan: String?
    /// /proc readings during the look that found it outside an event-loop wait call.
    public var busyReadings: Int
    /// /proc readings of it during the look.
    public var readings: Int
    /// Share of one core it used during the look, in percent.
    public var cpuPct: Double
    /// Its CPU time since it started (user and system), in nanoseconds.
    public var cpuTotalNs: UInt64
    /// Its stack, innermost frame first (interpreter frames merged in where lagmon reads them);
    /// empty when it could not be taken.
    public var frames: [Frame]
    /// How the unwind ended (`complete`, `truncated`, `failed`); nil without a stack.
    public var unwind: UnwindOutcome?
    /// How long the thread was stopped for its stack, in nanoseconds.
    public var pauseNs: UInt64?

    public init(
        tid: Int32, name: String, isMain: Bool, activity: Activity, schedulerState: String, syscall: String?,
        descriptor: String?, wchan: String?, busyReadings: Int, readings: Int, cpuPct: Double, cpuTotalNs: UInt64,
        frames: [Frame], unwind: UnwindOutcome?, pauseNs: UInt64?
    ) {
        self.tid = tid
        self.name = name
        self.isMain = isMain
        self.activity = activity
        self.schedulerState = schedulerState
        self.syscall = syscall
        self.descriptor = descriptor
        self.wchan = wchan
        self.busyReadings = busyReadings
        self.readings = readings
        self.cpuPct = cpuPct
        self.cpuTotalNs = cpuTotalNs
        self.frames = frames
        self.unwind = unwind
        self.pauseNs = pauseNs
    }
}
