import FoundationEssentials
import Glibc
import LagmonCore
import Synchronization

/// Settings for one `lagmon run`.
public struct RunOptions: Sendable {
    /// The target's argv.
    public var command: [String]
    /// Stall threshold.
    public var thresholdNs: UInt64
    /// How often a stalled loop is looked at.
    public var stalledPollNs: UInt64
    /// Path of the LD_PRELOAD probe library; nil runs the target without it (for programs that
    /// link LagmonAgent).
    public var preloadLibrary: String?
    /// Watchdog wake-ups later than this count as late.
    public var latenessToleranceNs: UInt64
    /// Whether stalled loops' stacks are sampled (ptrace).
    public var stacks: Bool
    /// Per-thread CPU reading interval; nil turns CPU sampling off.
    public var cpuIntervalNs: UInt64?
    /// CPU percentage a thread must stay above to raise an alert; nil: no alerts.
    public var cpuAlertPct: Double?
    /// Watch the main thread from /proc instead, for targets LD_PRELOAD cannot enter (static,
    /// setuid); nil: the channel's observers only.
    public var procProbe: ProcProbeSettings?
    /// Which loops are watched and reported (`--loops`).
    public var loops: LoopSelection
    /// Whether the target's descendants are watched too (`--follow-children`).
    public var followChildren: Bool

    public init(
        command: [String], thresholdNs: UInt64, stalledPollNs: UInt64 = 10_000_000, preloadLibrary: String?,
        latenessToleranceNs: UInt64 = 2_000_000, stacks: Bool = true, cpuIntervalNs: UInt64? = 250_000_000,
        cpuAlertPct: Double? = 70, loops: LoopSelection = .automatic, followChildren: Bool = false
    ) {
        self.command = command
        self.thresholdNs = thresholdNs
        self.stalledPollNs = stalledPollNs
        self.preloadLibrary = preloadLibrary
        self.latenessToleranceNs = latenessToleranceNs
        self.stacks = stacks
        self.cpuIntervalNs = cpuIntervalNs
        self.cpuAlertPct = cpuAlertPct
        self.loops = loops
        self.followChildren = followChildren
    }
}

/// One monitored run, start to finish: create the channel, start the target with the probe,
/// watch every loop the probe reports, wait for the target, collect everything.
public final class RunSession: @unchecked Sendable {
    let options: RunOptions
    private let forwarder = SignalForwarder()
    let watchdogs = Mutex<[Int: Watchdog]>([:])
    /// Results of watchdogs stopped before the end because their process ended.
    let stoppedEarly = Mutex<[Int: Watchdog.Result]>([:])
    /// Loop selection and the processes of the session, once the target runs.
    var sessionLoops: SessionLoops?
    private let stopping = Atomic<Bool>(false)
    private var samplers: SessionSamplers?
    /// What `progress()` reads, set once the target runs.
    let progressSources = Mutex<ProgressSources?>(nil)
    /// The /proc probe's watcher, when `options.procProbe` asks for one.
    let procWatcher = Mutex<ProcLoopWatcher?>(nil)

    public init(options: RunOptions) {
        self.options = options
    }

    /// Runs the target to completion and returns what was recorded. Throws
    /// `TargetProcess.LaunchError` when the target cannot start, `SystemError` when lagmon
    /// cannot set itself up.
    public func run() throws -> SessionRecording {
        let targetMask = SignalForwarder.blockForwardedSignals()
        let channel = try Channel(
            thresholdNs: options.thresholdNs, everyThread: options.loops.needsEveryThread,
            followChildren: options.followChildren)
        let startedAt = Self.timestamp()
        let spawnNs = channel.nowNs()
        let target = try TargetProcess(
            command: options.command, environment: targetEnvironment(channel: channel),
            inheritedDescriptor: channel.fileDescriptor, signalMask: targetMask)
        defer { target.reap() }
        let loops = try startLoops(channel, targetPid: target.pid)
        defer { loops.stop() }
        try forwarder.start(forwardingTo: target.pid)
        let samplers = SessionSamplers(pid: target.pid, channel: channel, spawnNs: spawnNs, options: options)
        self.samplers = samplers
        try samplers.start()
        let procProbe = startProcWatcher(pid: target.pid, channel: channel, samplers: samplers)
        progressSources.withLock {
            $0 = ProgressSources(
                channel: channel, spawnNs: spawnNs, thresholdNs: options.thresholdNs, samplers: samplers)
        }
        defer { progressSources.withLock { $0 = nil } }
        let discovery = try JoinableThread(name: "lagmon-discover") { [self] in discover(channel) }
        let exit = try target.waitForExit()
        // The slot keeps the last state after the exit: the live view must not read it as a stall.
        progressSources.withLock { $0 = nil }
        let endNs = channel.nowNs()
        forwarder.stop()
        stopping.store(true, ordering: .sequentiallyConsistent)
        channel.postDiscovery()
        discovery.join()
        loops.stop()
        var loopRecordings = collectLoops(channel)
        let procWatched = finishProcWatcher(atNs: endNs, loops: &loopRecordings)
        let sampled = samplers.finish()
        Self.assign(sampled.stallSamples, to: &loopRecordings)
        var recording = SessionRecording(
            command: options.command, pid: target.pid, startedAt: startedAt, clockBaseNs: channel.clockBaseNs,
            spawnNs: spawnNs, endNs: endNs, exit: exit, thresholdNs: options.thresholdNs, loops: loopRecordings,
            probe: channel.probeStatus, lateness: mergedLateness())
        recordLoopSelection(into: &recording, channel: channel)
        recording.threads = sampled.threads
        recording.samplingUnavailable = sampled.unavailable
        recording.samplesLost = sampled.samplesLost
        recording.sampleIntervalNs = options.stalledPollNs
        recording.cpuIntervalNs = options.cpuIntervalNs ?? 0
        recording.cpuAlertPct = options.cpuAlertPct ?? 0
        recording.overhead = Self.ownCost(cpuPasses: sampled.cpuPasses, cpuNsPerPass: sampled.cpuNsPerPass)
        Self.add(procWatched, settings: procProbe, to: &recording)
        return recording
    }

    /// Sampling starts at half the threshold, so a stall's first samples show how it began.
    var detectorConfiguration: StallDetector.Configuration {
        StallDetector.Configuration(
            thresholdNs: options.thresholdNs, stalledPollNs: options.stalledPollNs,
            armLeadNs: options.stacks ? options.thresholdNs / 2 : 0)
    }

    /// Starts a watchdog for every newly published slot until the session stops.
    private func discover(_ channel: Channel) {
        while !stopping.load(ordering: .sequentiallyConsistent) {
            endReplacedImages()
            startWatchdogs(channel)
            channel.waitForDiscovery(untilNs: channel.nowNs() + 250_000_000)
        }
    }

    private func startWatchdogs(_ channel: Channel) {
        for slot in channel.activeSlots() where watchdogs.withLock({ $0[slot.index] == nil }) && isWatched(slot) {
            watchdogs.withLock { watchdogs in
                guard watchdogs[slot.index] == nil else { return }
                let samplers = samplers
                let sampled = SampledThreads()
                let watchdog = Watchdog(
                    slot: slot, configuration: detectorConfiguration,
                    latenessToleranceNs: options.latenessToleranceNs
                ) { event, slot in
                    samplers?.handle(event, pid: slot.pid, tid: sampled.thread(for: event, current: slot.thread.tid))
                }
                // A loop whose process already ended is only read, not watched.
                if sessionLoops?.endNs(of: slot) == nil { try? watchdog.start() }
                watchdogs[slot.index] = watchdog
            }
        }
    }

    private var results: [Int: Watchdog.Result] = [:]

    /// Stops every watchdog and reads each slot's final state (the target has exited).
    private func collectLoops(_ channel: Channel) -> [LoopRecording] {
        startWatchdogs(channel)  // slots published after the last discovery pass
        let running = watchdogs.withLock { $0 }
        let early = stoppedEarly.withLock { $0 }
        results = running.mapValues { early[$0.slot.index] ?? $0.stop() }
        return running.keys.sorted().compactMap { index in
            guard let watchdog = running[index], let result = results[index] else { return nil }
            return loopRecording(of: watchdog.slot, result: result)
        }
    }

    /// Gives each loop the samples of its stalls. Samples are filed by the thread sampled and the
    /// busy period's start; the main actor's jobs run on whichever thread is free, so its
    /// samples are found by their busy periods' starts on any thread.
    static func assign(_ samples: [Int32: [UInt64: [ResolvedSample]]], to loops: inout [LoopRecording]) {
        var actorKeys = Set<UInt64>()
        for loop in loops where loop.observer == LoopObserver.swiftMainActor {
            actorKeys.formUnion(loop.stallRecords.map(\.startNs) + [loop.lastSnapshot.sinceNs])
        }
        var actorSamples: [UInt64: [ResolvedSample]] = [:]
        for byKey in samples.values {
            for (key, list) in byKey where actorKeys.contains(key) { actorSamples[key, default: []] += list }
        }
        for index in loops.indices {
            if loops[index].observer == LoopObserver.swiftMainActor {
                loops[index].stallSamples = actorSamples
            } else {
                let own = samples[loops[index].thread.tid] ?? [:]
                loops[index].stallSamples = own.filter { !actorKeys.contains($0.key) }
            }
        }
    }

    private func mergedLateness() -> LatenessTally {
        var merged = LatenessTally(toleranceNs: options.latenessToleranceNs)
        for result in results.values { merged.merge(result.lateness) }
        return merged
    }

    static func recording(of slot: ChannelSlot, result: Watchdog.Result) -> LoopRecording {
        let counters = slot.counters()
        var loop = LoopRecording(
            thread: slot.thread, pid: slot.pid, observer: slot.observerName, claimedNs: slot.claimedNs,
            passes: counters.passes, transitions: counters.transitions, busyCount: counters.busyCount,
            busyTotalNs: counters.busyTotalNs, busyMaxNs: counters.busyMaxNs, busyBuckets: slot.busyBuckets(),
            openBusySinceNs: slot.openBusySinceNs, lastSnapshot: slot.snapshot(), stallRecords: result.stallRecords,
            stallRecordsLost: result.stallRecordsLost, liveStallNoticedNs: result.liveStallNoticedNs)
        loop.longIterations = result.longIterations
        loop.longIterationsOmitted = result.longIterationsOmitted
        return loop
    }

    private func targetEnvironment(channel: Channel) -> [String] {
        var environment = ProcessInfo.processInfo.environment
        environment["LAGMON_CHANNEL_FD"] = String(channel.fileDescriptor)
        if options.followChildren {
            environment["LAGMON_CHANNEL_PATH"] = "/proc/\(getpid())/fd/\(channel.fileDescriptor)"
        }
        guard let preloadLibrary = options.preloadLibrary else { return Self.pairs(environment) }
        if let existing = environment["LD_PRELOAD"], !existing.isEmpty {
            environment["LD_PRELOAD"] = preloadLibrary + ":" + existing
        } else {
            environment["LD_PRELOAD"] = preloadLibrary
        }
        return Self.pairs(environment)
    }

    private static func pairs(_ environment: [String: String]) -> [String] {
        environment.map { "\($0.key)=\($0.value)" }.sorted()
    }

    /// lagmon's own CPU time and peak memory so far (RUSAGE_SELF: the target, a child, is not
    /// included).
    static func ownCost(cpuPasses: UInt64, cpuNsPerPass: UInt64) -> LagmonCost {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        func ns(_ time: timeval) -> UInt64 { UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_usec) * 1_000 }
        return LagmonCost(
            cpuNs: ns(usage.ru_utime) + ns(usage.ru_stime), peakRssBytes: UInt64(usage.ru_maxrss) * 1024,
            cpuSamplerPasses: cpuPasses, cpuSamplerNsPerPass: cpuNsPerPass)
    }

    private static func timestamp() -> String {
        Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
