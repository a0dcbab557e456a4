/// Everything lagmon read about one loop, as plain values (channel clock nanoseconds).
public struct LoopRecording: Sendable, Equatable {
    /// The loop's thread.
    public var thread: ThreadRef
    /// Its process.
    public var pid: Int32
    /// `cfrunloop` or `waitcall`.
    public var observer: String
    /// When the probe started observing it.
    public var claimedNs: UInt64
    /// Before-sources transitions.
    public var passes: UInt64
    /// All transitions.
    public var transitions: UInt64
    /// Completed busy periods, their total and their maximum.
    public var busyCount: UInt64
    public var busyTotalNs: UInt64
    public var busyMaxNs: UInt64
    /// Busy-period histogram: `LatencyBuckets` index → count (non-zero buckets only).
    public var busyBuckets: [Int: UInt64]
    /// Start of a busy period still open at the end, if any.
    public var openBusySinceNs: UInt64?
    /// The loop's last state.
    public var lastSnapshot: LoopSnapshot
    /// Stalls the observer recorded, oldest first.
    public var stallRecords: [StallRecord]
    /// Records overwritten before lagmon could read them.
    public var stallRecordsLost: UInt64
    /// Stalls no longer kept one by one (`StallRetention`): counted in every total, not listed.
    public var foldedStalls = FoldedStalls()
    /// When the watchdog noticed each stall it saw while it happened, keyed by the stall's start
    /// (channel clock).
    public var liveStallNoticedNs: [UInt64: UInt64]
    /// Stack samples taken during each stall, keyed by the stall's start (channel clock).
    public var stallSamples: [UInt64: [ResolvedSample]] = [:]
    /// Busy periods longer than the threshold, as the watchdog followed them.
    public var longIterations: [LongIterationRecord] = []
    /// Long busy periods beyond those recorded.
    public var longIterationsOmitted = 0
    /// For a loop watched from /proc (`ProcLoopProbe`): the largest error bound of its
    /// transition times. Nil for loops an in-target observer reported (their times are exact).
    public var timingErrorNs: UInt64?
    /// When the loop's process image ended (exit, exec, death), if before the session's end.
    public var endNs: UInt64?
    /// Blocking calls the loop's thread made (StrictMode), by call and call site.
    public var blockingCalls: [BlockingCallRecord] = []
    /// Blocking calls counted but held by no record: the probe's table was full.
    public var blockingCallsUnrecorded: UInt64 = 0
    /// Records in the channel whose numbers could not be true (ignored).
    public var blockingCallsRejected = 0

    public init(
        thread: ThreadRef, pid: Int32, observer: String, claimedNs: UInt64, passes: UInt64,
        transitions: UInt64, busyCount: UInt64, busyTotalNs: UInt64, busyMaxNs: UInt64,
        busyBuckets: [Int: UInt64], openBusySinceNs: UInt64?, lastSnapshot: LoopSnapshot,
        stallRecords: [StallRecord], stallRecordsLost: UInt64, liveStallNoticedNs: [UInt64: UInt64]
    ) {
        self.thread = thread
        self.pid = pid
        self.observer = observer
        self.claimedNs = claimedNs
        self.passes = passes
        self.transitions = transitions
        self.busyCount = busyCount
        self.busyTotalNs = busyTotalNs
        self.busyMaxNs = busyMaxNs
        self.busyBuckets = busyBuckets
        self.openBusySinceNs = openBusySinceNs
        self.lastSnapshot = lastSnapshot
        self.stallRecords = stallRecords
        self.stallRecordsLost = stallRecordsLost
        self.liveStallNoticedNs = liveStallNoticedNs
    }
}
