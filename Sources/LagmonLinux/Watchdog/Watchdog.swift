import LagmonCore
import Synchronization

/// Watches one loop on a thread of its own: sleeps on the slot's wake-up word until the next
/// instant a stall could begin, asks the `StallDetector` what happened, and drains the
/// observer's stall records. Parks without a deadline while the loop idles; the observer wakes
/// it on the loop's next wake-up.
public final class Watchdog: @unchecked Sendable {
    /// Receives the detector's events on the watchdog thread (for samplers and progress).
    public typealias EventHandler = @Sendable (StallDetector.Event, ChannelSlot) -> Void

    /// What a watchdog gathered by the time it stopped.
    public struct Result: Sendable {
        public var stallRecords: [StallRecord]
        public var stallRecordsLost: UInt64
        public var liveStallNoticedNs: [UInt64: UInt64]
        public var lateness: LatenessTally
        /// Busy periods longer than the threshold (capped) and how many more there were.
        public var longIterations: [LongIterationRecord] = []
        public var longIterationsOmitted = 0
    }

    /// Stalls that ended so far and the longest of them, for the live view (read from any
    /// thread; the watchdog updates it when it drains the observer's records).
    public struct Tally: Sendable, Equatable {
        public var stalls = 0
        public var worstNs: UInt64 = 0
    }

    /// The slot watched.
    public let slot: ChannelSlot
    /// Called with each stall record the detector never saw while it lasted (it ended between two
    /// looks), as the watchdog drains it: live metrics count it then, not only at the session's
    /// end. Set before `start()`; called on the watchdog thread (and from `stop()`).
    public var onUnseenStall: (@Sendable (StallRecord) -> Void)?
    private var detector: StallDetector
    private let onEvent: EventHandler?
    private let stopping = Atomic<Bool>(false)
    private var thread: JoinableThread?
    // Owned by the watchdog thread until join() returns.
    private var result: Result
    private var cursor: UInt64 = 0
    private var wakeup: ChannelWakeup
    private var iterations: LongIterationTracker
    private let tally = Mutex(Tally())

    /// Creates a watchdog for `slot`; call `start()` to run it.
    public init(
        slot: ChannelSlot, configuration: StallDetector.Configuration, latenessToleranceNs: UInt64,
        onEvent: EventHandler? = nil
    ) {
        self.slot = slot
        self.detector = StallDetector(configuration: Self.tuned(configuration, for: slot))
        self.onEvent = onEvent
        self.wakeup = slot.wakeup()
        self.result = Result(
            stallRecords: [], stallRecordsLost: 0, liveStallNoticedNs: [:],
            lateness: LatenessTally(toleranceNs: latenessToleranceNs))
        // A quarter of the threshold between looks bounds an unseen end's error, at a fraction
        // of the looks a stall costs.
        self.iterations = LongIterationTracker(
            thresholdNs: configuration.thresholdNs,
            pollNs: max(configuration.stalledPollNs, configuration.thresholdNs / 4))
    }

    /// Stalls ended so far (final once `stop()` returned).
    public var stallTally: Tally { tally.withLock { $0 } }

    /// Starts the watchdog thread.
    public func start() throws(SystemError) {
        thread = try JoinableThread(name: "lagmon-watchdog") { [self] in
            MonitorPriority.raiseLookingThread()
            run()
        }
    }

    /// Stops the thread, drains what is left and returns everything gathered.
    public func stop() -> Result {
        stopping.store(true, ordering: .sequentiallyConsistent)
        slot.post()
        thread?.join()
        drain()
        iterations.finish(atNs: slot.channel.nowNs())
        result.longIterations = iterations.records
        result.longIterationsOmitted = iterations.omitted
        result.lateness.observerPosts = slot.counters().posts
        return result
    }

    private func run() {
        // The watchdog was due the moment the probe published the slot: if lagmon only got to it
        // later (the machine or lagmon was busy), that counts as lateness too.
        var deadlineNs: UInt64? = slot.publishedNs
        while !stopping.load(ordering: .sequentiallyConsistent) {
            let nowNs = slot.channel.nowNs()
            if let deadlineNs { result.lateness.record(deadlineNs: deadlineNs, wokeNs: nowNs) }
            let snapshot = slot.snapshot()
            let (events, wake) = detector.observe(snapshot, nowNs: nowNs)
            let busyLookNs = iterations.observe(busySinceNs: slot.openBusySinceNs, snapshot: snapshot, nowNs: nowNs)
            handle(events)
            drain()
            deadlineNs = sleep(Self.earlier(wake, busyLookNs))
        }
    }

    private func handle(_ events: [StallDetector.Event]) {
        for event in events {
            if case .began(let stall) = event { result.liveStallNoticedNs[stall.startNs] = stall.noticedNs }
            onEvent?(event, slot)
        }
    }

    private func drain() {
        let (records, lost) = slot.drainStalls(cursor: &cursor)
        result.stallRecords += records
        result.stallRecordsLost += lost
        guard !records.isEmpty else { return }
        if let onUnseenStall {
            // Only what the report will keep (LoopRecording.plausible): the target writes these.
            let nowNs = slot.channel.nowNs()
            for record in records
            where result.liveStallNoticedNs[record.startNs] == nil && record.startNs >= slot.claimedNs
                && record.startNs <= record.endNs && record.endNs <= nowNs + LoopRecording.clockSlackNs
            {
                onUnseenStall(record)
            }
        }
        let worstNs = records.map { $0.endNs > $0.startNs ? $0.endNs - $0.startNs : 0 }.max() ?? 0
        tally.withLock { tally in
            tally.stalls += records.count
            tally.worstNs = max(tally.worstNs, worstNs)
        }
    }

    /// `configuration` as `slot` needs it: a Swift job slot's observer publishes each job with a
    /// release store and never wakes a parked watchdog (docs/design.md, Swift concurrency), so its
    /// watchdog never parks; idle, it looks once a threshold, which still catches every stall.
    static func tuned(_ configuration: StallDetector.Configuration, for slot: ChannelSlot)
        -> StallDetector.Configuration
    {
        guard !slot.isThreadLoop else { return configuration }
        var tuned = configuration
        tuned.parkAfterIdleNs = .max
        return tuned
    }

    /// The detector's wake, brought forward to `lookNs` if that is earlier. A parked watchdog
    /// stays parked: the loop is asleep, and its next wake-up posts the slot's word anyway.
    static func earlier(_ wake: StallDetector.Wake, _ lookNs: UInt64?) -> StallDetector.Wake {
        guard case .at(let deadlineNs) = wake, let lookNs else { return wake }
        return .at(min(deadlineNs, lookNs))
    }

    /// Sleeps as `wake` says; returns the deadline when the sleep ended by timing out (so its
    /// lateness can be measured), nil when something woke it.
    private func sleep(_ wake: StallDetector.Wake) -> UInt64? {
        switch wake {
        case .at(let deadlineNs):
            return wait(untilNs: deadlineNs) ? nil : deadlineNs
        case .parked(let untilNs):
            slot.park()
            // Re-check after announcing: a wake-up that raced the announcement is seen here.
            let parkedOn = slot.snapshot()
            if !parkedOn.activity.isIdle || stopping.load(ordering: .sequentiallyConsistent) {
                // The observer took the announcement: its post is already on the word or will
                // be (then it ends the next sleep early, which only costs one more look).
                if !slot.unpark() { wakeup.consume() }
                return nil
            }
            let posted = wait(untilNs: untilNs)
            if !slot.unpark() && !posted { wakeup.consume() }
            return posted ? nil : untilNs
        }
    }

    /// Sleeps until the slot's word is posted or until `deadlineNs` (channel clock); true when
    /// posted.
    private func wait(untilNs deadlineNs: UInt64) -> Bool {
        wakeup.wait(untilMonotonicNs: slot.channel.monotonicNs(deadlineNs))
    }
}
