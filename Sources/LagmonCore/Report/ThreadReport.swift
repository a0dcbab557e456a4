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
    /// CPU use over time, one point per reading interval (at most about 600: long runs merge
    /// neighbouring intervals).
    public var cpuSeries: [CPUPoint]

    public init(
        tid: Int32, name: String, state: String, cpu: ThreadCPU, alerts: [CPUAlert], cpuSeries: [CPUPoint] = []
    ) {
        self.tid = tid
        self.name = name
        self.state = state
        self.cpu = cpu
        self.alerts = alerts
        self.cpuSeries = cpuSeries
    }

    private enum CodingKeys: String, CodingKey {
        case tid, name, state, cpu, alerts, cpuSeries
    }

    /// Reads reports of lagmon builds that predate `cpuSeries` too (it is then empty).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        tid = try container.decode(Int32.self, forKey: .tid)
        name = try container.decode(String.self, forKey: .name)
        state = try container.decode(String.self, forKey: .state)
        cpu = try container.decode(ThreadCPU.self, forKey: .cpu)
        alerts = try container.decode([CPUAlert].self, forKey: .alerts)
        cpuSeries = try container.decodeIfPresent([CPUPoint].self, forKey: .cpuSeries) ?? []
    }
}
