import FoundationEssentials
import Glibc
import LagmonCore

/// What `lagmon run` and `lagmon attach` share from start to end: the session's clock, its
/// wall-clock start and time zero, the samplers and /proc watchers built from its settings, and
/// the assembly of the recording with lagmon's own cost.
struct SessionRecorder: Sendable {
    /// How the session watches.
    let settings: SessionSettings
    /// The session clock (CLOCK_MONOTONIC minus `clockBaseNs`).
    let clock: @Sendable () -> UInt64
    /// CLOCK_MONOTONIC at the session clock's zero.
    let clockBaseNs: UInt64
    /// Wall-clock start, ISO 8601.
    let startedAt: String
    /// The session's time zero on its clock: the target's spawn, or the attach.
    let startNs: UInt64

    /// Starts the session now: its wall-clock time, then its time zero on `clock`.
    init(settings: SessionSettings, clock: @escaping @Sendable () -> UInt64, clockBaseNs: UInt64) {
        self.settings = settings
        self.clock = clock
        self.clockBaseNs = clockBaseNs
        startedAt = Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        startNs = clock()
    }

    /// The stack and CPU samplers of process `pid` (not started).
    func samplers(pid: Int32, onStall: (@Sendable (StallEvent) -> Void)? = nil) -> SessionSamplers {
        SessionSamplers(
            pid: pid, clock: clock, clockBaseNs: clockBaseNs, spawnNs: startNs, settings: settings, onStall: onStall)
    }

    /// A /proc probe watcher of one thread (not started), reading every `intervalNs` until
    /// `endNs` (nil: until stopped).
    func procWatcher(
        files: ProcLoopFiles, thread: ThreadRef, intervalNs: UInt64, endNs: UInt64? = nil,
        retention: StallRetention? = nil, onEvent: @escaping @Sendable (StallDetector.Event) -> Void
    ) -> ProcLoopWatcher {
        ProcLoopWatcher(
            files: files, thread: thread, clock: clock,
            settings: .init(
                intervalNs: intervalNs, detector: settings.detector,
                latenessToleranceNs: settings.latenessToleranceNs, endNs: endNs, retention: retention),
            onEvent: onEvent)
    }

    /// A watchdog of `slot` (not started) whose events go to `samplers`.
    func watchdog(of slot: ChannelSlot, samplers: SessionSamplers?) -> Watchdog {
        let sampled = SampledThreads()
        let watchdog = Watchdog(
            slot: slot, configuration: settings.detector, latenessToleranceNs: settings.latenessToleranceNs
        ) { event, slot in
            samplers?.handle(event, pid: slot.pid, tid: sampled.thread(for: event, current: slot.thread.tid))
        }
        // Keyed by the loop's thread as the report names it (a main-actor slot's tid moves with its
        // jobs; `slot.thread` is what the report uses), so the end does not count it again.
        watchdog.onUnseenStall = { [pid = slot.pid, tid = slot.thread.tid] record in
            samplers?.unseen(pid: pid, tid: tid, durationNs: record.endNs - record.startNs)
        }
        return watchdog
    }

    /// The session's recording: `loops` with the stall samples `sampled` holds for them, what
    /// the samplers found, the settings it ran with, and lagmon's own cost so far.
    func recording(
        command: [String], pid: Int32, endNs: UInt64, exit: TargetExit?, loops: [LoopRecording], probe: ProbeStatus,
        lateness: LatenessTally, sampled: SessionSamplers.Outcome
    ) -> SessionRecording {
        var loops = loops
        Self.assign(sampled.stallSamples, to: &loops)
        var recording = SessionRecording(
            command: command, pid: pid, startedAt: startedAt, clockBaseNs: clockBaseNs, spawnNs: startNs,
            endNs: endNs, exit: exit, thresholdNs: settings.thresholdNs, loops: loops, probe: probe,
            lateness: lateness)
        recording.threads = sampled.threads
        recording.samplingUnavailable = sampled.unavailable
        recording.targetFileProblems = sampled.fileProblems
        recording.privilegeRefusals = sampled.privilegeRefusals
        recording.samplesLost = sampled.samplesLost
        recording.samplesFolded = sampled.samplesDropped
        recording.stateOnlySamplesFolded = sampled.stateOnlySamplesDropped
        recording.sampleIntervalNs = settings.sampleIntervalNs
        recording.cpuIntervalNs = settings.cpuIntervalNs ?? 0
        recording.cpuAlertPct = settings.cpuAlertPct ?? 0
        recording.overhead = Self.ownCost(cpuPasses: sampled.cpuPasses, cpuNsPerPass: sampled.cpuNsPerPass)
        return recording
    }

    /// Puts what the /proc probe watched into `recording`: its settings, its punctuality, its cost.
    static func add(
        _ watched: ProcLoopWatcher.Result, settings: ProcProbeSettings, to recording: inout SessionRecording
    ) {
        recording.procProbe = settings
        recording.lateness.merge(watched.lateness)
        recording.overhead?.probeReadings = watched.readings
        recording.overhead?.probeCPUNs = watched.cpuNs
    }

    /// lagmon's own CPU time and peak memory so far (RUSAGE_SELF: the target, a child or
    /// another process, is not included).
    static func ownCost(cpuPasses: UInt64, cpuNsPerPass: UInt64) -> LagmonCost {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        func ns(_ time: timeval) -> UInt64 { UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_usec) * 1_000 }
        return LagmonCost(
            cpuNs: ns(usage.ru_utime) + ns(usage.ru_stime), peakRssBytes: UInt64(usage.ru_maxrss) * 1024,
            cpuSamplerPasses: cpuPasses, cpuSamplerNsPerPass: cpuNsPerPass)
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
}
