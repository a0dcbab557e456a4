/// A number a gate reads from a report: a statistic over stalls, busy periods, blocking time or
/// a thread's CPU use. Written `family.stat` (`stall.max`, `cpu[main].avg`).
public enum BudgetMetric: Hashable, Sendable, CustomStringConvertible {
    /// Stalls over all loops.
    case stallCount
    /// The longest stall.
    case stallMax
    /// All stalls added up.
    case stallTotal
    /// A percentile (50, 90 or 99) of the stall durations, nearest rank.
    case stallPercentile(Int)
    /// A busy-period percentile (50, 90 or 99); with several loops, the worst loop's.
    case latencyPercentile(Int)
    /// The longest busy period of any loop.
    case latencyMax
    /// Total blocking time: the sum over stalls of the part beyond the threshold.
    case blockingTotal
    /// Total blocking time as a percentage of the target's wall time.
    case blockingRatio
    /// Average CPU use of the selected threads (the busiest of them), % of one core.
    case cpuAverage(ThreadSelector)
    /// The busiest interval of the selected threads, % of one core.
    case cpuMax(ThreadSelector)

    /// The metric families, their statistics (the first is the default), and whether they take
    /// a `[THREAD]`.
    static let families: [(name: String, stats: [String], takesThread: Bool)] = [
        ("stall", ["count", "max", "total", "p50", "p90", "p99"], false),
        ("latency", ["p99", "p90", "p50", "max"], false),
        ("blocking", ["total", "ratio"], false),
        ("cpu", ["avg", "max"], true),
    ]

    /// The metric `family[thread].stat` names, if there is one.
    static func named(family: String, thread: ThreadSelector?, stat: String) -> BudgetMetric? {
        switch (family, stat) {
        case ("stall", "count"): .stallCount
        case ("stall", "max"): .stallMax
        case ("stall", "total"): .stallTotal
        case ("stall", "p50"): .stallPercentile(50)
        case ("stall", "p90"): .stallPercentile(90)
        case ("stall", "p99"): .stallPercentile(99)
        case ("latency", "p50"): .latencyPercentile(50)
        case ("latency", "p90"): .latencyPercentile(90)
        case ("latency", "p99"): .latencyPercentile(99)
        case ("latency", "max"): .latencyMax
        case ("blocking", "total"): .blockingTotal
        case ("blocking", "ratio"): .blockingRatio
        case ("cpu", "avg"): thread.map { .cpuAverage($0) }
        case ("cpu", "max"): thread.map { .cpuMax($0) }
        default: nil
        }
    }

    /// The metrics `lagmon diff` compares, in the order it shows them.
    public static let diffable: [BudgetMetric] = [
        .stallCount, .stallMax, .stallTotal, .stallPercentile(50), .stallPercentile(90), .stallPercentile(99),
        .latencyPercentile(50), .latencyPercentile(90), .latencyPercentile(99), .latencyMax,
        .blockingTotal, .blockingRatio, .cpuAverage(.main), .cpuMax(.main),
    ]

    /// The canonical name: `stall.p99`, `cpu[main].avg`.
    public var description: String {
        switch self {
        case .stallCount: "stall.count"
        case .stallMax: "stall.max"
        case .stallTotal: "stall.total"
        case .stallPercentile(let p): "stall.p\(p)"
        case .latencyPercentile(let p): "latency.p\(p)"
        case .latencyMax: "latency.max"
        case .blockingTotal: "blocking.total"
        case .blockingRatio: "blocking.ratio"
        case .cpuAverage(let thread): "cpu[\(thread)].avg"
        case .cpuMax(let thread): "cpu[\(thread)].max"
        }
    }

    /// The kind of number it is.
    public var dimension: MetricDimension {
        switch self {
        case .stallCount: .count
        case .stallMax, .stallTotal, .stallPercentile, .latencyPercentile, .latencyMax, .blockingTotal: .duration
        case .blockingRatio, .cpuAverage, .cpuMax: .percent
        }
    }
}
