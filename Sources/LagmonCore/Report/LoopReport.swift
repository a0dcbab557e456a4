/// How one observed loop behaved over the session.
public struct LoopReport: Codable, Sendable, Equatable {
    /// The thread running the loop.
    public var thread: ThreadRef
    /// The process it belongs to.
    public var pid: Int32
    /// How it was observed: `cfrunloop` (a CFRunLoopObserver).
    public var observer: String
    /// Loop passes (before-sources transitions).
    public var iterations: UInt64
    /// Activity transitions observed.
    public var transitions: UInt64
    /// Time spent awake, including a busy period still open at exit.
    public var busyNs: UInt64
    /// From the observer's installation to the end of the session.
    public var observedNs: UInt64
    /// `busyNs / observedNs`, 0 when nothing was observed.
    public var busyRatio: Double
    /// Busy period percentiles.
    public var latency: LatencySummary
    /// Stalls on this loop.
    public var stallCount: Int
    /// Busy periods longer than the threshold, stalls included, oldest first (at most 10,000).
    public var longIterations: [LongIteration]
    /// Long busy periods beyond those listed.
    public var longIterationsOmitted: Int
    /// For a loop watched from /proc (`observer` `proc`): the largest error bound of its
    /// transition times, so of its stalls' starts and ends. Nil (absent) for other observers,
    /// whose times are exact.
    public var timingErrorNs: UInt64?

    public init(
        thread: ThreadRef, pid: Int32, observer: String, iterations: UInt64, transitions: UInt64,
        busyNs: UInt64, observedNs: UInt64, latency: LatencySummary, stallCount: Int,
        longIterations: [LongIteration] = [], longIterationsOmitted: Int = 0
    ) {
        self.thread = thread
        self.pid = pid
        self.observer = observer
        self.iterations = iterations
        self.transitions = transitions
        self.busyNs = busyNs
        self.observedNs = observedNs
        self.busyRatio = observedNs == 0 ? 0 : min(1, Double(busyNs) / Double(observedNs))
        self.latency = latency
        self.stallCount = stallCount
        self.longIterations = longIterations
        self.longIterationsOmitted = longIterationsOmitted
    }

    private enum CodingKeys: String, CodingKey {
        case thread, pid, observer, iterations, transitions, busyNs, observedNs, busyRatio, latency, stallCount
        case longIterations, longIterationsOmitted, timingErrorNs
    }

    /// Reads reports of lagmon builds that predate `longIterations` too (it is then empty).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        thread = try container.decode(ThreadRef.self, forKey: .thread)
        pid = try container.decode(Int32.self, forKey: .pid)
        observer = try container.decode(String.self, forKey: .observer)
        iterations = try container.decode(UInt64.self, forKey: .iterations)
        transitions = try container.decode(UInt64.self, forKey: .transitions)
        busyNs = try container.decode(UInt64.self, forKey: .busyNs)
        observedNs = try container.decode(UInt64.self, forKey: .observedNs)
        busyRatio = try container.decode(Double.self, forKey: .busyRatio)
        latency = try container.decode(LatencySummary.self, forKey: .latency)
        stallCount = try container.decode(Int.self, forKey: .stallCount)
        longIterations = try container.decodeIfPresent([LongIteration].self, forKey: .longIterations) ?? []
        longIterationsOmitted = try container.decodeIfPresent(Int.self, forKey: .longIterationsOmitted) ?? 0
        timingErrorNs = try container.decodeIfPresent(UInt64.self, forKey: .timingErrorNs)
    }
}
