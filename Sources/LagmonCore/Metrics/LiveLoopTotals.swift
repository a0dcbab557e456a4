/// One loop's running totals since it was first seen, read while the session runs.
public struct LiveLoopTotals: Sendable, Equatable {
    /// The process and its name (comm).
    public var pid: Int32
    public var processName: String
    /// The loop's thread and its name (comm).
    public var tid: Int32
    public var loopName: String
    /// Completed iterations (wake-ups).
    public var iterations: UInt64
    /// Time spent awake (busy), completed busy periods only.
    public var busyNs: UInt64
    /// Busy periods by `LatencyBuckets` index, for the latency quantiles.
    public var busyBuckets: [Int: UInt64]

    public init(
        pid: Int32, processName: String, tid: Int32, loopName: String, iterations: UInt64, busyNs: UInt64,
        busyBuckets: [Int: UInt64]
    ) {
        self.pid = pid
        self.processName = processName
        self.tid = tid
        self.loopName = loopName
        self.iterations = iterations
        self.busyNs = busyNs
        self.busyBuckets = busyBuckets
    }
}
