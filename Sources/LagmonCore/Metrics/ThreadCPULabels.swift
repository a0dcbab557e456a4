/// Turns per-thread CPU readings into increments of a bounded set of `thread` label values.
///
/// Threads are grouped by name (a pool of workers shares one series). A name gets a series of
/// its own when it is among the busiest of an interval while fewer than `maxNamed` names have
/// one; once given, a series stays (a counter must never move to another label). Every other
/// thread's CPU counts under `other`. So a target with 10,000 differently named threads still
/// exposes at most `maxNamed + 1` series, and their sum is the target's CPU time.
public struct ThreadCPULabels: Sendable {
    /// The label value of the threads without a series of their own.
    public static let other = "other"
    /// Names with a series of their own, at most.
    public let maxNamed: Int
    /// Names given a series, in the order they got one.
    public private(set) var named: [String] = []
    /// Each live thread's CPU ticks at the last update (threads gone are forgotten).
    private var lastTicks: [Int32: UInt64] = [:]

    public init(maxNamed: Int = 10) {
        self.maxNamed = maxNamed
    }

    /// The CPU ticks each label gained since the last update. A thread seen for the first time
    /// contributes all its ticks; one whose count went down (a reused tid) starts over.
    public mutating func increments(_ readings: [ThreadCPUReading]) -> [String: UInt64] {
        var byName: [String: UInt64] = [:]
        var seen: [Int32: UInt64] = [:]
        for reading in readings {
            let last = lastTicks[reading.tid] ?? 0
            let delta = reading.cpuTicks >= last ? reading.cpuTicks - last : reading.cpuTicks
            seen[reading.tid] = reading.cpuTicks
            byName[reading.name, default: 0] += delta
        }
        lastTicks = seen
        admitBusiest(byName)
        var increments: [String: UInt64] = [:]
        for (name, ticks) in byName where ticks > 0 {
            increments[named.contains(name) ? name : Self.other, default: 0] += ticks
        }
        return increments
    }

    /// Gives the busiest names without a series one, while there is room.
    private mutating func admitBusiest(_ byName: [String: UInt64]) {
        guard named.count < maxNamed else { return }
        let candidates = byName.filter { $0.value > 0 && !named.contains($0.key) && $0.key != Self.other }
            .sorted { ($0.value, $1.key) > ($1.value, $0.key) }
        for candidate in candidates.prefix(maxNamed - named.count) { named.append(candidate.key) }
    }
}
