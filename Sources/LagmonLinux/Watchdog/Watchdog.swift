import LagmonCore
import Synchronization

/// Watches one loop on a thread of its own: sleeps on the slot's wake-up word until the next
/// instant a stall could begin, asks the `StallDetector` what happened, and drains the
/// observer's stall records. Parks without a deadline while the loop idles; the observer wakes
/// it on the loop's next wake-up.
public final class Watchdog: Sendable {
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
    /// end. Called on the watchdog thread (and from `stop()`).
    private let onUnseenStall: (@Sendable (StallRecord) -> Void)?
    private let onEvent: EventHandler?
    private let stopping = Atomic<Bool>(false)
    private let thread = WorkerThread()
    /// The longest the watchdog sleeps (`bounded`): the threshold, or the detector's parked
    /// timeout if that is longer, which the detector never exceeds for an honest slot.
    private let longestSleepNs: UInt64
    /// What the watchdog thread works on; the stopper's once it joined the thread.
    private struct Owned {
        var detector: StallDetector
        var result: Result
        var cursor: UInt64 = 0
        var wakeup: ChannelWakeup
        var iterations: LongIterationTracker
    }
    private let owned: ThreadOwned<Owned>
    private let tally = Mutex(Tally())

    /// Creates a watchdog for `slot`; call `start()` to run it.
    public init(
        slot: ChannelSlot, configuration: StallDetector.Configuration, latenessToleranceNs: UInt64,
        onEvent: EventHandler? = nil, onUnseenStall: (@Sendable (StallRecord) -> Void)? = nil
    ) {
        self.slot = slot
        self.onEvent = onEvent
        self.onUnseenStall = onUnseenStall
        longestSleepNs = max(configuration.thresholdNs, configuration.parkTimeoutNs)
        owned = ThreadOwned(
            Owned(
                detector: StallDetector(configuration: Self.tuned(configuration, for: slot)),
                result: Result(
                    stallRecords: [], stallRecordsLost: 0, liveStallNoticedNs: [:],
                    lateness: LatenessTally(toleranceNs: latenessToleranceNs)),
                wakeup: slot.wakeup(),
                // A quarter of the threshold between looks bounds an unseen end's error, at a
                // fraction of the looks a stall costs.
                iterations: LongIterationTracker(
                    thresholdNs: configuration.thresholdNs,
                    pollNs: max(configuration.stalledPollNs, configuration.thresholdNs / 4))))
    }

    /// Stalls ended so far (final once `stop()` returned).
    public var stallTally: Tally { tally.withLock { $0 } }

    /// Starts the watchdog thread.
    public func start() throws(SystemError) {
        try thread.start(name: "lagmon-watchdog") { [self] in
            owned.claim()
            MonitorPriority.raiseLookingThread()
            run()
        }
    }

    /// Stops the thread, drains what is left and returns everything gathered.
    ///
    /// The slot's wake-up word is the target's to write too: a post can be lost there (the
    /// target made it land on the value the watchdog sleeps on), so it is repeated until the
    /// thread has returned.
    public func stop() -> Result {
        stopping.store(true, ordering: .sequentiallyConsistent)
        repeat { slot.post() } while !thread.join(withinNs: Self.stopRepostNs)
        owned.claim()
        drain()
        owned.value.iterations.finish(atNs: slot.channel.nowNs())
        owned.value.result.longIterations = owned.value.iterations.records
        owned.value.result.longIterationsOmitted = owned.value.iterations.omitted
        owned.value.result.lateness.observerPosts = slot.counters().posts
        return owned.value.result
    }

    private func run() {
        // The watchdog was due the moment the probe published the slot: if lagmon only got to it
        // later (the machine or lagmon was busy), that counts as lateness too.
        var deadlineNs: UInt64? = slot.publishedNs
        while !stopping.load(ordering: .sequentiallyConsistent) {
            let nowNs = slot.channel.nowNs()
            if let deadlineNs { owned.value.result.lateness.record(deadlineNs: deadlineNs, wokeNs: nowNs) }
            let snapshot = slot.snapshot()
            let (events, wake) = owned.value.detector.observe(snapshot, nowNs: nowNs)
            let busyLookNs = owned.value.iterations.observe(
                busySinceNs: slot.openBusySinceNs, snapshot: snapshot, nowNs: nowNs)
            handle(events)
            drain()
            deadlineNs = sleep(Self.bounded(Self.earlier(wake, busyLookNs), nowNs: nowNs, longestNs: longestSleepNs))
        }
    }

    private func handle(_ events: [StallDetector.Event]) {
        for event in events {
            if case .began(let stall) = event { owned.value.result.liveStallNoticedNs[stall.startNs] = stall.noticedNs }
            onEvent?(event, slot)
        }
    }

    private func drain() {
        let (records, lost) = slot.drainStalls(cursor: &owned.value.cursor)
        owned.value.result.stallRecords += records
        owned.value.result.stallRecordsLost += lost
        guard !records.isEmpty else { return }
        if let onUnseenStall {
            // Only what the report will keep (LoopRecording.plausible): the target writes these.
            let nowNs = slot.channel.nowNs()
            let noticed = owned.value.result.liveStallNoticedNs
            for record in records
            where noticed[record.startNs] == nil && record.startNs >= slot.claimedNs
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

    /// `wake` no later than `longestNs` after `nowNs`. A wake-up time comes from times the target
    /// wrote (when its loop went busy): a forged one far ahead would have the watchdog sleep for
    /// months, blind to the slot and, if a post to it was lost, deaf to its stop.
    static func bounded(_ wake: StallDetector.Wake, nowNs: UInt64, longestNs: UInt64) -> StallDetector.Wake {
        let (latestNs, overflow) = nowNs.addingReportingOverflow(longestNs)
        guard !overflow else { return wake }
        switch wake {
        case .at(let deadlineNs): return .at(min(deadlineNs, latestNs))
        case .parked(let untilNs): return .parked(until: min(untilNs, latestNs))
        }
    }

    /// How long `stop()` waits for the thread before posting again.
    static let stopRepostNs: UInt64 = 10_000_000

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
                if !slot.unpark() { owned.value.wakeup.consume() }
                return nil
            }
            let posted = wait(untilNs: untilNs)
            if !slot.unpark() && !posted { owned.value.wakeup.consume() }
            return posted ? nil : untilNs
        }
    }

    /// Sleeps until the slot's word is posted or until `deadlineNs` (channel clock); true when
    /// posted.
    private func wait(untilNs deadlineNs: UInt64) -> Bool {
        owned.value.wakeup.wait(untilMonotonicNs: slot.channel.monotonicNs(deadlineNs)) {
            stopping.load(ordering: .sequentiallyConsistent)
        }
    }
}
