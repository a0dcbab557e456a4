/// CPU use of one thread of the target over the session (from /proc/<pid>/task/*/stat).
public struct ThreadReport: Codable, Sendable, Equatable {
    /// Kernel thread id.
    public var tid: Int32
    /// Thread name (comm) as last seen.
    public var name: String
    /// Scheduler state as last seen (`R`, `S`, `D`, …).
    public var state: String
    /// CPU use.
    public var cpu: ThreadCPU
    /// Times the thread stayed above the CPU alert level, with its stack then.
    public var alerts: [CPUAlert]

    public init(tid: Int32, name: String, state: String, cpu: ThreadCPU, alerts: [CPUAlert]) {
        self.tid = tid
        self.name = name
        self.state = state
        self.cpu = cpu
        self.alerts = alerts
    }
}

/// User plus system CPU of one thread, as a percentage of one core.
public struct ThreadCPU: Codable, Sendable, Equatable {
    /// Average over the intervals the thread was seen in.
    public var avgPct: Double
    /// The busiest interval.
    public var maxPct: Double
    /// Total CPU time consumed while observed.
    public var totalNs: UInt64

    public init(avgPct: Double, maxPct: Double, totalNs: UInt64) {
        self.avgPct = avgPct
        self.maxPct = maxPct
        self.totalNs = totalNs
    }
}

/// A thread that stayed above the `--cpu-alert` level.
public struct CPUAlert: Codable, Sendable, Equatable {
    /// When the alert fired, since the target started.
    public var atNs: UInt64
    /// Its CPU use over the intervals that triggered the alert.
    public var cpuPct: Double
    /// Its stack at that moment, root first; empty when it could not be sampled.
    public var frames: [Frame]

    public init(atNs: UInt64, cpuPct: Double, frames: [Frame]) {
        self.atNs = atNs
        self.cpuPct = cpuPct
        self.frames = frames
    }
}
