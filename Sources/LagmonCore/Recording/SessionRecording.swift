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
    /// Files the targets named (images, interpreters, perf maps) that lagmon could not read:
    /// their stacks lack what those files would have named.
    public var targetFileProblems: [TargetFileProblem] = []
    /// Processes not sampled because the target's own user could not have traced them (a setuid
    /// exec, raised ids or capabilities): one line each, naming the process and why.
    public var privilegeRefusals: [String] = []
    /// Stack samples requested but not taken (the thread exited or would not stop in time).
    public var samplesLost = 0
    /// Stack samples taken during stalls that were folded (`LoopRecording.foldedStalls`) or
    /// during busy periods that did not become stalls, and dropped: counted, no longer held.
    public var samplesFolded = 0
    /// The same for samples that hold only the thread's /proc state.
    public var stateOnlySamplesFolded = 0
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
    /// Channel entries (slots, process entries) that named a process outside the session, and
    /// values in watched slots no probe could have written; all ignored.
    public var channelRejectedEntries = 0
    public var channelRejectedValues = 0
    /// Whether the probe counted blocking calls on loop threads (StrictMode; `--no-strict` and
    /// `lagmon attach` have it off).
    public var strict = false

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
