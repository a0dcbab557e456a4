import LagmonCore
import LagmonSymbols
import Synchronization

/// The samplers of one session: stacks of stalled loops (and of threads that burn CPU), and
/// per-thread CPU. Turns watchdog and CPU events into sampling requests, and at the end turns
/// raw samples into symbolized ones for the report.
final class SessionSamplers: Sendable {
    /// What the samplers found, ready for the recording.
    struct Outcome {
        /// Resolved stall samples by thread, then by the busy period's start (channel clock).
        var stallSamples: [Int32: [UInt64: [ResolvedSample]]]
        /// Per-thread CPU, alerts with their stacks.
        var threads: [ThreadReport]
        /// Why there are no stacks, if there are none for a reason.
        var unavailable: String?
        /// Stack samples requested but not taken (thread gone, no stop in time).
        var samplesLost: Int
        /// Stack samples taken and then let go (`drop`, `dropsUnstalled`): with a stack, and
        /// state-only.
        var samplesDropped = 0
        var stateOnlySamplesDropped = 0
        /// Set when a pass found more threads than the CPU sampler reads.
        var threadCap: ThreadCap?
        /// Passes over /proc/<pid>/task and their average CPU cost.
        var cpuPasses: UInt64
        var cpuNsPerPass: UInt64
        /// The processes whose perf maps named JIT frames of samples.
        var perfMapPids: [Int32] = []
        /// Files the targets named that could not be read.
        var fileProblems: [TargetFileProblem] = []
        /// Processes not sampled because their own user could not have traced them: why, one
        /// line each, by pid.
        var privilegeRefusals: [String] = []
        /// What lagmon's perf-map requests to JVMs left behind (JVMAttach.clean removes it).
        var jvmRequests: [JVMAttach.Request] = []
    }

    /// How samples are kept, fixed for the session.
    struct Policy: Sendable {
        /// Whether the samples of a busy period that did not become a stall go at once (a long
        /// `lagmon attach`: they are no stall's evidence); counted either way.
        var dropsUnstalled = false
        /// Whether a loop thread found asleep in its wait call is left unstopped
        /// (`StackSampler.Options.sparesWaitingThreads`: loops watched from /proc).
        var sparesWaitingThreads = false
        /// Stack samples kept of one busy period at most (`StackSampler.Options`); nil: every one.
        var maxSamplesPerPeriod: Int?
    }

    /// Alert samples use keys with the top bit set, so they never collide with busy periods.
    private static let alertKeyFlag: UInt64 = 1 << 63

    private let stacks: StackSampler?
    private let cpu: ThreadCPUSampler?
    /// CPU alerts whose stacks were requested, by sample key (shared with the CPU thread).
    private final class AlertEvents: Sendable {
        let byKey = Mutex<[UInt64: CPUAlertEvent]>([:])
    }
    private let alerts = AlertEvents()
    /// The /proc watchers of loop threads, by tid: each stack sample's stop is a reading for them.
    private final class Watchers: Sendable {
        let byThread = Mutex<[Int32: ProcLoopWatcher]>([:])
    }
    private let watchers = Watchers()
    /// The live reporter, for the stack sampler made before it.
    private final class ReporterCell: Sendable {
        let reporter = Mutex<LiveStallReporter?>(nil)
    }
    /// The target's pid.
    let pid: Int32
    /// The session clock.
    private let clock: @Sendable () -> UInt64
    /// Hands ended stalls to live metrics, when asked for.
    private let stallReporter: LiveStallReporter?
    /// Names the culprits of the stalls live metrics count (with stacks and live metrics).
    private let culprits: LiveCulpritResolver?
    /// Whether the samples of a busy period that did not become a stall go at once (`Policy`).
    private let dropsUnstalled: Bool

    /// Samplers of process `pid` on the session clock `clock` (CLOCK_MONOTONIC minus
    /// `clockBaseNs`); `spawnNs` is the session's time zero on it.
    init(
        pid: Int32, clock: @escaping @Sendable () -> UInt64, clockBaseNs: UInt64, spawnNs: UInt64,
        settings: SessionSettings, policy: Policy = .init(), onStall: (@Sendable (StallEvent) -> Void)? = nil
    ) {
        self.pid = pid
        self.clock = clock
        dropsUnstalled = policy.dropsUnstalled
        // The live reporter hears of finished periods from the stack sampler, which it also asks
        // for culprits: a cell lets the sampler's callback reach it once it exists.
        let reporterCell = onStall.map { _ in ReporterCell() }
        let watchers = self.watchers
        let stacks =
            settings.stacks
            ? StackSampler(
                // /proc/<tid>/task/<tid> names any thread, the target's or a descendant's.
                pid: pid, clock: clock, readState: { tid in ProcFS.threadState(pid: tid, tid: tid) },
                options: Self.stackOptions(policy, watchers: watchers, reporter: reporterCell))
            : nil
        let culprits = stacks.flatMap { stacks in
            onStall.map { LiveCulpritResolver(sampler: stacks, pid: pid, report: $0) }
        }
        self.culprits = culprits
        let reporter = onStall.map { LiveStallReporter(report: $0, culprits: culprits) }
        reporterCell?.reporter.withLock { $0 = reporter }
        self.stallReporter = reporter
        self.stacks = stacks
        let tracker = ThreadCPUTracker(
            configuration: .init(
                ticksPerSecond: ThreadCPUSampler.cpuTicksPerSecond(pid: pid), targetStartNs: spawnNs,
                alertPct: settings.cpuAlertPct))
        let alerts = self.alerts
        cpu =
            settings.cpuIntervalNs.map { interval in
                ThreadCPUSampler(
                    pid: pid, tracker: tracker, intervalNs: interval, clockBaseNs: clockBaseNs
                ) { event in
                    guard let stacks else { return }
                    let key = Self.alertKeyFlag | event.atNs
                    alerts.byKey.withLock { $0[key] = event }
                    stacks.request(.sample(tid: event.tid, key: key))
                    stacks.request(.finish(tid: event.tid, key: key))
                }
            }
    }

    /// The stack sampler's options: `policy`'s, each stop told to the /proc watcher of the thread
    /// stopped, each finished busy period to the live reporter (with live metrics).
    private static func stackOptions(_ policy: Policy, watchers: Watchers, reporter: ReporterCell?)
        -> StackSampler.Options
    {
        var options = StackSampler.Options(
            sparesWaitingThreads: policy.sparesWaitingThreads, maxSamplesPerPeriod: policy.maxSamplesPerPeriod)
        options.onStopped = { _, tid, requestedNs, stoppedNs, state in
            watchers.byThread.withLock { $0[tid] }?.noteStop(
                requestedNs: requestedNs, stoppedNs: stoppedNs, state: state)
        }
        options.onStopWindow = { tid, open in
            watchers.byThread.withLock { $0[tid] }?.samplerStopWindow(open: open)
        }
        if let reporter {
            options.onFinish = { tid, key, samples in
                reporter.reporter.withLock { $0 }?.finished(tid: tid, key: key, samples: samples)
            }
        }
        return options
    }

    /// The main thread's latest CPU use, for the live view; nil with CPU sampling off.
    var mainThreadCPUPct: Double? { cpu?.mainThreadPct }

    /// Live metrics' view of the samplers: stack samples taken and lost, every thread's latest
    /// CPU reading and its unit.
    var live: (taken: UInt64, lost: UInt64, threads: [ThreadCPUReading], ticksPerSecond: UInt64) {
        let counts = stacks?.liveCounts ?? (taken: 0, lost: 0)
        return (counts.taken, counts.lost, cpu?.latestReadings ?? [], cpu?.cpuTicksPerSecond ?? 1_000_000_000)
    }

    /// A loop of process `pid` is watched: the stack sampler reads what it needs of the process
    /// now rather than at its first stall.
    func prepare(pid: Int32) {
        stacks?.request(.prepare(pid: pid))
    }

    /// Hands `watcher` the state each stack sample of its thread finds (see
    /// `ProcLoopWatcher.noteStop`).
    func feed(_ watcher: ProcLoopWatcher) {
        watchers.byThread.withLock { $0[watcher.thread.tid] = watcher }
    }

    /// What a /proc watcher of thread `tid` of the target calls with each stall it never saw
    /// while it lasted: live metrics count it (nil without live metrics).
    func unseenStallHandler(tid: Int32) -> (@Sendable (UInt64) -> Void)? {
        guard let stallReporter else { return nil }
        return { [pid] durationNs in stallReporter.unseen(pid: pid, tid: tid, durationNs: durationNs) }
    }

    func start() throws(SystemError) {
        try stacks?.start()
        try cpu?.start()
        try culprits?.start()
    }

    /// A stall of the loop on thread `tid` of process `pid` that its watchdog saw only after it
    /// ended: counted at once by the live metrics (no samples, no diagnosis).
    func unseen(pid: Int32, tid: Int32, durationNs: UInt64) {
        stallReporter?.unseen(pid: pid, tid: tid, durationNs: durationNs)
    }

    /// The watchdog's events for the loop on thread `tid` of the target.
    func handle(_ event: StallDetector.Event, tid: Int32) {
        handle(event, pid: pid, tid: tid)
    }

    /// The watchdog's events for the loop on thread `tid` of process `pid`: sample while it is
    /// armed or stalled, detach when it moves on.
    func handle(_ event: StallDetector.Event, pid: Int32, tid: Int32) {
        stallReporter?.note(event, pid: pid, tid: tid, waitsForSamples: stacks != nil)
        guard let stacks else { return }
        switch event {
        case .armed(let startNs, _): stacks.request(.sample(pid: pid, tid: tid, key: startNs))
        case .began(let stall), .continuing(let stall):
            stacks.request(.sample(pid: pid, tid: tid, key: stall.startNs))
        case .ended(let stall, _): finish(stacks, pid: pid, tid: tid, key: stall.startNs)
        case .disarmed(let startNs):
            finish(stacks, pid: pid, tid: tid, key: startNs)
            if dropsUnstalled { stacks.request(.drop(keys: [startNs])) }
        }
    }

    /// Ends busy period `key` of `tid` with the thread's counters read now, on the watchdog's
    /// thread: the period's closing reading is taken when its end was seen, not when a sampler
    /// kept behind gets to the request (its contention is measured up to it).
    private func finish(_ stacks: StackSampler, pid: Int32, tid: Int32, key: UInt64) {
        let closing = ProcFS.threadCounters(pid: tid, tid: tid).map {
            TimedThreadState(timestampNs: clock(), state: $0)
        }
        stacks.request(.finish(pid: pid, tid: tid, key: key, closing: closing, periodEnded: true))
    }

    /// The samples of busy periods `keys` (stalls folded away) are no longer needed.
    func drop(keys: [UInt64]) {
        stacks?.request(.drop(keys: keys))
    }

    /// The stall samples taken so far, symbolized, while sampling goes on (a report snapshot);
    /// nil when the sampler did not hand them over within `timeoutNs`. CPU alerts are left out.
    func stallSamplesSoFar(timeoutNs: UInt64 = 2_000_000_000) -> (
        samples: [Int32: [UInt64: [ResolvedSample]]], unavailable: String?
    )? {
        guard let stacks else { return ([:], nil) }
        let reply = StackSampler.ResultCopy()
        stacks.request(.copy(into: reply))
        guard let result = reply.wait(timeoutNs: timeoutNs) else { return nil }
        var stallSamples: [Int32: [UInt64: [ResolvedSample]]] = [:]
        // Finding the symbolizer tool looks through PATH: not for a snapshot with nothing to name.
        guard result.samples.keys.contains(where: { $0 & Self.alertKeyFlag == 0 }) else {
            return (stallSamples, result.unavailable)
        }
        let symbolizer = Symbolizer()
        for (key, samples) in result.samples where key & Self.alertKeyFlag == 0 {
            for sample in result.resolved(key: key, samples: samples, pid: pid, symbolizer: symbolizer) {
                stallSamples[sample.sample.tid, default: [:]][key, default: []].append(sample)
            }
        }
        return (stallSamples, result.unavailable)
    }

    /// Stops sampling (detaching from every thread) and symbolizes what was sampled.
    func finish() -> Outcome {
        let tracker = cpu?.stop()
        // The culprit thread first: the stalls the sampler's last requests end wait for `flush`.
        culprits?.stop()
        let result = stacks?.stop()
        watchers.byThread.withLock { $0.removeAll() }
        let symbolizer = Symbolizer()
        var stallSamples: [Int32: [UInt64: [ResolvedSample]]] = [:]
        var alertStacks: [Int32: [CPUAlert]] = [:]
        let alertEvents = alerts.byKey.withLock { $0 }
        for (key, samples) in result?.samples ?? [:] {
            let resolved = result?.resolved(key: key, samples: samples, pid: pid, symbolizer: symbolizer) ?? []
            if key & Self.alertKeyFlag != 0, let event = alertEvents[key] {
                var alert = event.alert
                alert.frames = resolved.first.map { Array($0.frames.reversed()) } ?? []
                alertStacks[event.tid, default: []].append(alert)
                continue
            }
            for sample in resolved { stallSamples[sample.sample.tid, default: [:]][key, default: []].append(sample) }
        }
        culprits?.flush(stallSamples)
        return Outcome(
            stallSamples: stallSamples, threads: tracker?.reports(alertStacks: alertStacks) ?? [],
            unavailable: result?.unavailable, samplesLost: result?.failures ?? 0, samplesDropped: result?.dropped ?? 0,
            stateOnlySamplesDropped: result?.droppedStateOnly ?? 0, threadCap: cpu?.threadCap,
            cpuPasses: cpu?.cost.passes ?? 0, cpuNsPerPass: cpu?.cost.cpuNsPerPass ?? 0,
            perfMapPids: result.map { Array($0.perfMapIndexes.keys) } ?? [], fileProblems: result?.fileProblems ?? [],
            privilegeRefusals: (result?.privilegeRefusals ?? [:]).sorted { $0.key < $1.key }.map(\.value),
            jvmRequests: result?.jvmRequests ?? [])
    }
}
