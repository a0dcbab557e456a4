import LagmonCore

/// Settings for one `lagmon attach`.
public struct AttachOptions: Sendable {
    /// The process, and the thread whose loop is watched.
    public var target: AttachTarget
    /// The thread as asked for (`main`, a thread id or a name), for the report's `config.loops`.
    public var threadSelection = "main"
    /// How the session watches (threshold, sampling, CPU, tolerances).
    public var settings: SessionSettings
    /// Time between /proc readings of the watched thread.
    public var probeIntervalNs: UInt64
    /// End the session after this long; nil: at SIGINT, SIGTERM, SIGHUP or the process's exit.
    public var durationNs: UInt64?
    /// Receives a snapshot of the recording so far at SIGHUP (which then no longer ends the
    /// session) and every `snapshotEveryNs`; called on the session's thread. Nil: SIGHUP ends
    /// the session like SIGINT.
    public var onSnapshot: (@Sendable (SessionRecording) -> Void)?
    /// Time between snapshots; nil: only at SIGHUP.
    public var snapshotEveryNs: UInt64?
    /// Bounds the stalls kept in full, so memory stays flat however long the session runs:
    /// the others are folded into exact counts and a duration histogram (`FoldedStalls`).
    public var retention = StallRetention()
    /// Receives each stall as it ends (live metrics); called on lagmon's sampling threads.
    public var onStall: (@Sendable (StallEvent) -> Void)?
    /// Finds the process that replaced the watched one once it exited (`--name`, `--pid-file`
    /// with no `--duration`); asked every `restartPollNs` until it answers or a stop signal
    /// comes. Nil: the session ends when the process exits.
    public var nextTarget: (@Sendable (AttachTarget) -> AttachTarget?)?
    /// Time between two looks for the replacing process.
    public var restartPollNs: UInt64 = 1_000_000_000
    /// Told when the watched process exited and the session waits for the next one, and when
    /// it attached to that one; called on the session's thread.
    public var onRestart: (@Sendable (AttachSession.Restart) -> Void)?

    public init(
        target: AttachTarget, settings: SessionSettings,
        probeIntervalNs: UInt64 = ProcProbeSettings.defaultIntervalNs, durationNs: UInt64? = nil
    ) {
        self.target = target
        self.settings = settings
        self.probeIntervalNs = probeIntervalNs
        self.durationNs = durationNs
    }
}
