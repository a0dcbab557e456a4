/// A stall as the in-target observer recorded it when the loop finally moved on.
public struct StallRecord: Sendable, Equatable {
    /// Entry into the stalling activity (channel clock).
    public var startNs: UInt64
    /// The next transition (channel clock).
    public var endNs: UInt64
    /// The activity it was stuck in.
    public var activity: LoopActivity

    public init(startNs: UInt64, endNs: UInt64, activity: LoopActivity) {
        self.startNs = startNs
        self.endNs = endNs
        self.activity = activity
    }
}

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

/// What the probes in the target said about themselves (bits of the channel's probe flags).
public struct ProbeStatus: Sendable, Equatable {
    /// The preload library ran its constructor in the target.
    public var preloadLoaded: Bool
    /// LagmonAgent.install() was called.
    public var agentCalled: Bool
    /// CoreFoundation was found in the target.
    public var foundCoreFoundation: Bool
    /// CoreFoundation was looked for and is absent.
    public var lacksCoreFoundation: Bool
    /// A run loop observer was installed.
    public var observerInstalled: Bool
    /// A loop could not be observed because every slot was taken.
    public var slotsExhausted: Bool
    /// CoreFoundation refused to create an observer.
    public var installFailed: Bool
    /// Probes that found a channel of another version.
    public var versionMismatches: UInt32
    /// A process could not be listed because the process table was full.
    public var processesExhausted = false

    public init(
        preloadLoaded: Bool = false, agentCalled: Bool = false, foundCoreFoundation: Bool = false,
        lacksCoreFoundation: Bool = false, observerInstalled: Bool = false, slotsExhausted: Bool = false,
        installFailed: Bool = false, versionMismatches: UInt32 = 0, processesExhausted: Bool = false
    ) {
        self.preloadLoaded = preloadLoaded
        self.agentCalled = agentCalled
        self.foundCoreFoundation = foundCoreFoundation
        self.lacksCoreFoundation = lacksCoreFoundation
        self.observerInstalled = observerInstalled
        self.slotsExhausted = slotsExhausted
        self.installFailed = installFailed
        self.versionMismatches = versionMismatches
        self.processesExhausted = processesExhausted
    }
}

/// How the target ended.
public enum TargetExit: Sendable, Equatable {
    /// It exited with this code.
    case exited(Int32)
    /// A signal killed it.
    case signaled(Int32)

    /// The status lagmon passes on: the code, or 128 + the signal number.
    public var passThroughStatus: Int32 {
        switch self {
        case .exited(let code): code
        case .signaled(let signal): 128 + signal
        }
    }
}

/// One session's raw results, ready to become a report.
public struct SessionRecording: Sendable, Equatable {
    /// The command as given.
    public var command: [String]
    /// Its pid.
    public var pid: Int32
    /// Wall-clock start, ISO 8601.
    public var startedAt: String
    /// CLOCK_MONOTONIC of the channel clock's zero.
    public var clockBaseNs: UInt64
    /// Spawn and end instants (channel clock).
    public var spawnNs: UInt64
    public var endNs: UInt64
    /// How it ended; nil when lagmon did not start it (`lagmon attach`): only its parent can
    /// learn its status.
    public var exit: TargetExit?
    /// Set when lagmon attached to a running process instead of starting it.
    public var attached: AttachedTarget?
    /// Set when a loop was watched from /proc (`ProcLoopProbe`) rather than from inside.
    public var procProbe: ProcProbeSettings?
    /// Stall threshold.
    public var thresholdNs: UInt64
    /// Observed loops.
    public var loops: [LoopRecording]
    /// Probe self-description.
    public var probe: ProbeStatus
    /// The watchdog's punctuality.
    public var lateness: LatenessTally
    /// Per-thread CPU use, with alerts (empty when CPU sampling was off).
    public var threads: [ThreadReport] = []
    /// Why stack sampling was impossible, if it was (for example ptrace refused).
    public var samplingUnavailable: String?
    /// Stack samples requested but not taken (the thread exited or would not stop in time).
    public var samplesLost = 0
    /// Interval between stack samples during a stall.
    public var sampleIntervalNs: UInt64 = SessionSettings.defaultSampleIntervalNs
    /// Interval between per-thread CPU readings.
    public var cpuIntervalNs: UInt64 = SessionSettings.defaultCPUIntervalNs
    /// CPU percentage above which a thread raises an alert.
    public var cpuAlertPct: Double = SessionSettings.defaultCPUAlertPct
    /// lagmon's own CPU time, peak memory and CPU sampler cost (nil when not measured).
    public var overhead: LagmonCost?
    /// Which loops were asked for (`--loops`, as `config.loops` states it).
    public var loopSelection = "main"
    /// The processes whose probe attached, in the channel's order (several for one pid after an exec).
    public var processes: [ProcessRecording] = []
    /// Threads that ran an event loop but were not watched (only main threads were).
    public var unwatchedLoops = 0
    /// Names of loop threads that `--loops NAME` did not select.
    public var unselectedLoopNames: [String] = []
    /// Process images of the target's descendants that were not watched (no
    /// `--follow-children`); a fork that execs counts twice.
    public var unfollowedProcesses = 0

    public init(
        command: [String], pid: Int32, startedAt: String, clockBaseNs: UInt64 = 0, spawnNs: UInt64, endNs: UInt64,
        exit: TargetExit?, thresholdNs: UInt64, loops: [LoopRecording], probe: ProbeStatus,
        lateness: LatenessTally
    ) {
        self.command = command
        self.pid = pid
        self.startedAt = startedAt
        self.clockBaseNs = clockBaseNs
        self.spawnNs = spawnNs
        self.endNs = endNs
        self.exit = exit
        self.thresholdNs = thresholdNs
        self.loops = loops
        self.probe = probe
        self.lateness = lateness
    }
}

/// lagmon's own resource use over a session, as measured by the session.
public struct LagmonCost: Sendable, Equatable {
    public var cpuNs: UInt64
    public var peakRssBytes: UInt64
    public var cpuSamplerPasses: UInt64
    public var cpuSamplerNsPerPass: UInt64
    /// The /proc probe's readings and the CPU time its thread used, when it ran.
    public var probeReadings: UInt64?
    public var probeCPUNs: UInt64?

    public init(cpuNs: UInt64, peakRssBytes: UInt64, cpuSamplerPasses: UInt64, cpuSamplerNsPerPass: UInt64) {
        self.cpuNs = cpuNs
        self.peakRssBytes = peakRssBytes
        self.cpuSamplerPasses = cpuSamplerPasses
        self.cpuSamplerNsPerPass = cpuSamplerNsPerPass
    }
}
