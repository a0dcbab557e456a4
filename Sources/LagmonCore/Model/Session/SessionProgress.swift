/// How a run is going, for the live status line: a snapshot taken at one instant while the
/// target runs. Plain values; RunSession makes them on request, off the observer's path.
public struct SessionProgress: Sendable, Equatable {
    /// What the watched loop is doing.
    public enum LoopState: Sendable, Equatable {
        /// No observer attached yet (or none will: the program has no run loop).
        case notObserved
        /// Asleep, waiting for events.
        case idle
        /// Awake, handling events, not (yet) past the threshold in one activity.
        case busy(LoopActivity)
        /// Stuck in one activity past the threshold: a stall in progress, this long so far.
        case stalled(LoopActivity, forNs: UInt64)
    }

    /// Time since the target started.
    public var elapsedNs: UInt64
    /// Stalls so far, the one in progress included.
    public var stallCount: Int
    /// The longest stall so far (the one in progress included).
    public var worstStallNs: UInt64
    /// The main loop's state.
    public var loop: LoopState
    /// The main thread's CPU use over the latest reading interval; nil before two readings or
    /// with CPU sampling off.
    public var mainThreadCPUPct: Double?

    public init(
        elapsedNs: UInt64, stallCount: Int, worstStallNs: UInt64, loop: LoopState, mainThreadCPUPct: Double?
    ) {
        self.elapsedNs = elapsedNs
        self.stallCount = stallCount
        self.worstStallNs = worstStallNs
        self.loop = loop
        self.mainThreadCPUPct = mainThreadCPUPct
    }
}
