/// A thread's CPU intervals, kept bounded for any run length (STYLE habit 13): when
/// `2 × maxPoints` intervals have gathered, neighbours merge pairwise (their ticks and wall time
/// add up), so a long run keeps between `maxPoints` and `2 × maxPoints` intervals of equal
/// resolution, and `points` halves once more if needed to return at most `maxPoints`.
public struct CPUSeries: Sendable, Equatable {
    /// One interval: CPU ticks over wall time, ending at `endNs` (channel clock).
    struct Interval: Sendable, Equatable {
        var endNs: UInt64
        var ticks: UInt64
        var wallNs: UInt64
    }

    /// Points returned by `points`, at most.
    public let maxPoints: Int
    private(set) var intervals: [Interval] = []

    public init(maxPoints: Int = 600) {
        self.maxPoints = max(maxPoints, 1)
    }

    /// Adds the interval of `wallNs` ending at `endNs` in which the thread used `ticks`.
    public mutating func append(endNs: UInt64, ticks: UInt64, wallNs: UInt64) {
        intervals.append(Interval(endNs: endNs, ticks: ticks, wallNs: wallNs))
        if intervals.count >= 2 * maxPoints { intervals = Self.halved(intervals) }
    }

    /// The series as report points: times relative to `originNs`, percentages of one core
    /// from `ticksPerSecond`; at most `maxPoints`.
    public func points(originNs: UInt64, ticksPerSecond: UInt64) -> [CPUPoint] {
        var kept = intervals
        while kept.count > maxPoints { kept = Self.halved(kept) }
        return kept.map { interval in
            let pct =
                interval.wallNs == 0
                ? 0 : Double(interval.ticks) * 1e11 / (Double(max(ticksPerSecond, 1)) * Double(interval.wallNs))
            return CPUPoint(atNs: interval.endNs > originNs ? interval.endNs - originNs : 0, pct: pct)
        }
    }

    /// Neighbours merged pairwise (an odd last one stays as it is).
    private static func halved(_ intervals: [Interval]) -> [Interval] {
        stride(from: 0, to: intervals.count, by: 2).map { index in
            guard index + 1 < intervals.count else { return intervals[index] }
            let (first, second) = (intervals[index], intervals[index + 1])
            return Interval(
                endNs: second.endNs, ticks: first.ticks + second.ticks, wallNs: first.wallNs + second.wallNs)
        }
    }
}
