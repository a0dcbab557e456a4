/// One process's CPU time so far, as a scan of /proc read it.
public struct ProcessTicks: Sendable, Equatable {
    /// Its name (`comm`).
    public var name: String
    /// User plus system time, in clock ticks.
    public var ticks: UInt64

    public init(name: String, ticks: UInt64) {
        self.name = name
        self.ticks = ticks
    }

    /// The processes that used the most CPU between two scans `windowNs` apart, most first
    /// (then by pid), at most `limit`, leaving out `excluded` and those that used none. A
    /// process in only one scan (started or ended between them) is left out.
    public static func busiest(
        before: [Int32: ProcessTicks], after: [Int32: ProcessTicks], ticksPerSecond: UInt64, windowNs: UInt64,
        excluding excluded: Set<Int32>, limit: Int = 5
    ) -> [ProcessCPU] {
        let nsPerTick = 1_000_000_000 / max(ticksPerSecond, 1)
        let used = after.compactMap { pid, now -> ProcessCPU? in
            guard !excluded.contains(pid), let then = before[pid], now.ticks > then.ticks else { return nil }
            let cpuNs = (now.ticks - then.ticks).multipliedReportingOverflow(by: nsPerTick)
            return ProcessCPU(
                pid: pid, name: now.name, cpuNs: cpuNs.overflow ? .max : cpuNs.partialValue, windowNs: windowNs)
        }
        return Array(used.sorted { ($1.cpuNs, $0.pid) < ($0.cpuNs, $1.pid) }.prefix(limit))
    }
}
