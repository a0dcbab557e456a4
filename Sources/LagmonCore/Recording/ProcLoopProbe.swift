/// The /proc probe: turns successive readings of one thread's /proc files into what the
/// in-target observer would have written — loop snapshots for the `StallDetector`, busy periods,
/// stall records — for a loop lagmon cannot enter (`lagmon attach`, static or setuid targets).
/// Pure: the caller reads /proc and passes the readings with their times.
///
/// Outside an event-loop wait call the loop is awake (`afterWaiting`), inside one it sleeps
/// (`beforeWaiting`). A transition happened somewhere between the two readings that saw either
/// side of it; its time is taken as the middle of that span, so it is off by at most half of it
/// (`timingErrorNs` keeps the largest such bound). A wake-up and sleep both between two readings
/// is not seen as such, but the thread's schedstat shows it ran: it counts as one iteration whose
/// busy period is the CPU and run-queue time it took.
public struct ProcLoopProbe: Sendable {
    /// Busy periods longer than this are stalls.
    public let thresholdNs: UInt64
    /// Long iterations kept, at most.
    public let maxLongIterations: Int
    /// The loop's state, as the `StallDetector` reads it.
    public private(set) var snapshot = LoopSnapshot(activity: .none, sinceNs: 0)
    /// Start of the busy period in progress, if the loop is awake.
    public private(set) var openBusySinceNs: UInt64?
    /// When the first reading was taken (the observation's start).
    public private(set) var firstReadingNs: UInt64?
    /// Iterations: wake-ups seen or inferred (a busy period in progress at the first reading
    /// counts too).
    public private(set) var passes: UInt64 = 0
    /// Waiting/busy changes seen between two readings.
    public private(set) var transitions: UInt64 = 0
    /// Completed busy periods, their total and maximum.
    public private(set) var busyCount: UInt64 = 0
    public private(set) var busyTotalNs: UInt64 = 0
    public private(set) var busyMaxNs: UInt64 = 0
    /// Busy-period histogram: `LatencyBuckets` index → count.
    public private(set) var busyBuckets: [Int: UInt64] = [:]
    /// Busy periods longer than the threshold, oldest first.
    public private(set) var stallRecords: [StallRecord] = []
    /// Stalls recorded so far, folded ones included (each record's `ordinal`).
    public private(set) var stallCount = 0
    /// Stalls `retention` folded out of `stallRecords`.
    public private(set) var foldedStalls = FoldedStalls()
    /// Bounds `stallRecords` (`foldStalls`); nil: every record is kept.
    public var retention: StallRetention?
    /// The same periods as long iterations (capped at `maxLongIterations`), and how many more.
    public private(set) var longIterations: [LongIterationRecord] = []
    public private(set) var longIterationsOmitted = 0
    /// The largest error bound of a transition time: half the span between the readings on
    /// either side of it.
    public private(set) var timingErrorNs: UInt64 = 0
    private var previous: ProcLoopReading?

    public init(thresholdNs: UInt64, maxLongIterations: Int = 10_000) {
        self.thresholdNs = thresholdNs
        self.maxLongIterations = maxLongIterations
    }

    /// Takes one reading and returns the loop's snapshot after it. A `gone` reading changes
    /// nothing (the caller ends the observation).
    @discardableResult
    public mutating func record(_ reading: ProcLoopReading) -> LoopSnapshot {
        guard reading.state != .gone else { return snapshot }
        var reading = reading
        if reading.state == .resuming { reading.state = previous?.state ?? .busy }
        defer { previous = reading }
        guard let previous else {
            begin(with: reading)
            return snapshot
        }
        switch (previous.state, reading.state) {
        case (.waiting, .busy): wake(at: transitionNs(previous, reading))
        case (.busy, .waiting): sleep(at: transitionNs(previous, reading))
        case (.waiting, .waiting): inferUnseenIteration(previous, reading)
        default: break
        }
        return snapshot
    }

    /// The session ended at `endNs`: a long busy period still open ends there (its end is not
    /// a transition, so not `endSeen`).
    public mutating func finish(atNs endNs: UInt64) {
        guard let since = openBusySinceNs, endNs > since, endNs - since > thresholdNs else { return }
        appendLongIteration(LongIterationRecord(startNs: since, endNs: endNs, endSeen: false))
    }

    /// The first reading: the loop's state then, from that instant (a busy period in progress
    /// began earlier, unseen).
    private mutating func begin(with reading: ProcLoopReading) {
        firstReadingNs = reading.beganNs
        if reading.state == .busy {
            passes += 1
            snapshot = LoopSnapshot(activity: .afterWaiting, sinceNs: reading.beganNs)
            openBusySinceNs = reading.beganNs
        } else {
            snapshot = LoopSnapshot(activity: .beforeWaiting, sinceNs: reading.beganNs)
        }
    }

    /// The middle of the span from the start of the reading before the transition to the end of
    /// the one after it; never before the previous transition.
    private mutating func transitionNs(_ before: ProcLoopReading, _ after: ProcLoopReading) -> UInt64 {
        let spanNs = after.endedNs > before.beganNs ? after.endedNs - before.beganNs : 0
        timingErrorNs = max(timingErrorNs, spanNs / 2)
        return max(before.beganNs + spanNs / 2, snapshot.sinceNs + 1)
    }

    private mutating func wake(at instantNs: UInt64) {
        transitions += 1
        passes += 1
        snapshot = LoopSnapshot(activity: .afterWaiting, sinceNs: instantNs)
        openBusySinceNs = instantNs
    }

    private mutating func sleep(at instantNs: UInt64) {
        transitions += 1
        if let since = openBusySinceNs { closeBusyPeriod(startNs: since, endNs: instantNs, endSeen: true) }
        openBusySinceNs = nil
        snapshot = LoopSnapshot(activity: .beforeWaiting, sinceNs: instantNs)
    }

    /// Two readings in a wait call, but the thread got on a CPU in between (its time-slice count
    /// grew and it used CPU time): it woke, ran an iteration and went back to sleep unseen. Its
    /// busy period is the CPU and run-queue time it took, placed in the middle of the span.
    private mutating func inferUnseenIteration(_ before: ProcLoopReading, _ after: ProcLoopReading) {
        guard let old = before.schedstat, let new = after.schedstat, new.timeslices > old.timeslices,
            new.onCPUNs > old.onCPUNs
        else { return }
        let spanNs = after.endedNs > before.beganNs ? after.endedNs - before.beganNs : 0
        let queuedNs = new.runDelayNs > old.runDelayNs ? new.runDelayNs - old.runDelayNs : 0
        let busyNs = min(new.onCPUNs - old.onCPUNs + queuedNs, spanNs)
        let startNs = max(before.beganNs + (spanNs - busyNs) / 2, snapshot.sinceNs)
        passes += 1
        closeBusyPeriod(startNs: startNs, endNs: startNs + busyNs, endSeen: false)
    }

    private mutating func closeBusyPeriod(startNs: UInt64, endNs: UInt64, endSeen: Bool) {
        let durationNs = endNs > startNs ? endNs - startNs : 0
        busyCount += 1
        busyTotalNs += durationNs
        busyMaxNs = max(busyMaxNs, durationNs)
        busyBuckets[LatencyBuckets.index(of: durationNs), default: 0] += 1
        guard durationNs > thresholdNs else { return }
        stallCount += 1
        stallRecords.append(StallRecord(startNs: startNs, endNs: endNs, activity: .afterWaiting, ordinal: stallCount))
        appendLongIteration(LongIterationRecord(startNs: startNs, endNs: endNs, endSeen: endSeen))
    }

    private mutating func appendLongIteration(_ record: LongIterationRecord) {
        if longIterations.count < maxLongIterations {
            longIterations.append(record)
        } else {
            longIterationsOmitted += 1
        }
    }

    /// Folds the stall records down to what `retention` keeps, once there are enough of them;
    /// `seenLive` tells the stalls the detector saw while they lasted. Returns the starts of the
    /// stalls folded (their samples can go).
    public mutating func foldStalls(seenLive: (UInt64) -> Bool) -> [UInt64] {
        guard let retention else { return [] }
        return retention.fold(&stallRecords, into: &foldedStalls, thresholdNs: thresholdNs, seenLive: seenLive)
    }

    /// Everything observed, as the recording of loop `thread` of process `pid`: stalls are the
    /// busy periods over the threshold; `liveStallNoticedNs` says when the detector
    /// noticed those it saw begin, keyed by their start.
    public func recording(thread: ThreadRef, pid: Int32, liveStallNoticedNs: [UInt64: UInt64]) -> LoopRecording {
        var loop = LoopRecording(
            thread: thread, pid: pid, observer: Self.observerName, claimedNs: firstReadingNs ?? 0, passes: passes,
            transitions: transitions, busyCount: busyCount, busyTotalNs: busyTotalNs, busyMaxNs: busyMaxNs,
            busyBuckets: busyBuckets, openBusySinceNs: openBusySinceNs, lastSnapshot: snapshot,
            stallRecords: stallRecords, stallRecordsLost: 0, liveStallNoticedNs: liveStallNoticedNs)
        loop.foldedStalls = foldedStalls
        loop.longIterations = longIterations
        loop.longIterationsOmitted = longIterationsOmitted
        loop.timingErrorNs = timingErrorNs
        return loop
    }

    /// The report's `observer` for loops seen this way.
    public static let observerName = "proc"
}
