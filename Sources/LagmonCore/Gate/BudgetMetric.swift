/// A number a gate reads from a report: a statistic over stalls, busy periods, blocking time,
/// blocking calls on loop threads (StrictMode) or a thread's CPU use. Written `family.stat` (`stall.max`, `cpu[main].avg`).
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
    /// StrictMode: blocking calls loop threads made (file I/O, DNS, sleeps …), stalling or not.
    case strictCount
    /// StrictMode: the time those calls took, all together.
    case strictTotal
    /// StrictMode: the longest of them.
    case strictMax
    /// Average CPU use of the selected threads (the busiest of them), % of one core.
    case cpuAverage(ThreadSelector)
    /// The busiest interval of the selected threads, % of one core.
    case cpuMax(ThreadSelector)

    /// Every metric, each family's default statistic first (a thread's CPU metrics for `thread`):
    /// the one list the names, the parser and its suggestions come from.
    static func all(thread: ThreadSelector) -> [BudgetMetric] {
        [
            .stallCount, .stallMax, .stallTotal, .stallPercentile(50), .stallPercentile(90), .stallPercentile(99),
            .latencyPercentile(99), .latencyPercentile(90), .latencyPercentile(50), .latencyMax,
            .blockingTotal, .blockingRatio, .strictCount, .strictTotal, .strictMax, .cpuAverage(thread),
            .cpuMax(thread),
        ]
    }

    /// The metric families, their statistics (the first is the default), and whether they take
    /// a `[THREAD]`.
    static let families: [(name: String, stats: [String], takesThread: Bool)] = all(thread: .main).reduce(into: []) {
        families, metric in
        let (family, stat) = metric.name
        if let last = families.indices.last, families[last].name == family {
            families[last].stats.append(stat)
        } else {
            families.append((family, [stat], metric.thread != nil))
        }
    }

    /// The metric `family[thread].stat` names, if there is one.
    static func named(family: String, thread: ThreadSelector?, stat: String) -> BudgetMetric? {
        all(thread: thread ?? .main).first { metric in
            metric.name == (family, stat) && (metric.thread == nil || thread != nil)
        }
    }

    /// The family and statistic, as written: the only place they are spelled.
    var name: (family: String, stat: String) {
        switch self {
        case .stallCount: ("stall", "count")
        case .stallMax: ("stall", "max")
        case .stallTotal: ("stall", "total")
        case .stallPercentile(let p): ("stall", "p\(p)")
        case .latencyPercentile(let p): ("latency", "p\(p)")
        case .latencyMax: ("latency", "max")
        case .blockingTotal: ("blocking", "total")
        case .blockingRatio: ("blocking", "ratio")
        case .strictCount: ("strict", "count")
        case .strictTotal: ("strict", "total")
        case .strictMax: ("strict", "max")
        case .cpuAverage: ("cpu", "avg")
        case .cpuMax: ("cpu", "max")
        }
    }

    /// The threads of a CPU metric; nil for the others.
    var thread: ThreadSelector? {
        switch self {
        case .cpuAverage(let thread), .cpuMax(let thread): thread
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
        let (family, stat) = name
        return thread.map { "\(family)[\($0)].\(stat)" } ?? "\(family).\(stat)"
    }

    /// The kind of number it is.
    public var dimension: MetricDimension {
        switch self {
        case .stallCount, .strictCount: .count
        case .stallMax, .stallTotal, .stallPercentile, .latencyPercentile, .latencyMax, .blockingTotal, .strictTotal,
            .strictMax:
            .duration
        case .blockingRatio, .cpuAverage, .cpuMax: .percent
        }
    }
}
