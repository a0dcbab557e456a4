import LagmonCore

/// Settings for one `lagmon run`.
public struct RunOptions: Sendable {
    /// The target's argv.
    public var command: [String]
    /// How the session watches (threshold, sampling, CPU, tolerances).
    public var settings: SessionSettings
    /// Path of the LD_PRELOAD probe library; nil runs the target without it (for programs that
    /// link LagmonAgent).
    public var preloadLibrary: String?
    /// Watch the main thread from /proc instead, for targets LD_PRELOAD cannot enter (static,
    /// setuid); nil: the channel's observers only.
    public var procProbe: ProcProbeSettings?
    /// Whether runtimes lagmon recognises (node) start with their perf map on
    /// (`--no-jit-maps` turns this off); the maps they write are removed when the run ends.
    public var jitMaps = true
    /// Which loops are watched and reported (`--loops`).
    public var loops: LoopSelection
    /// Whether the target's descendants are watched too (`--follow-children`).
    public var followChildren: Bool
    /// Whether blocking calls on loop threads are counted (StrictMode; `--no-strict` turns it off).
    public var strict = true
    /// `--duration`: SIGTERM the target this long after it started (nil: let it run), SIGKILL
    /// it `killGraceNs` later if it still runs, telling `onDeadline` each time.
    public var durationNs: UInt64?
    /// The grace period between SIGTERM and SIGKILL.
    public var killGraceNs: UInt64 = 5_000_000_000
    /// Told what `durationNs` made lagmon send.
    public var onDeadline: (@Sendable (TargetDeadline.Step) -> Void)?
    /// Receives each stall as it ends (live metrics); called on lagmon's sampling threads.
    public var onStall: (@Sendable (StallEvent) -> Void)?

    public init(
        command: [String], settings: SessionSettings, preloadLibrary: String?, loops: LoopSelection = .automatic,
        followChildren: Bool = false
    ) {
        self.command = command
        self.settings = settings
        self.preloadLibrary = preloadLibrary
        self.loops = loops
        self.followChildren = followChildren
    }
}
