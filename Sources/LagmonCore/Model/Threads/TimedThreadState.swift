/// A thread's /proc state and when it was read (channel clock): the readings a busy period's
/// contention is measured between.
public struct TimedThreadState: Sendable, Equatable {
    /// When the state was read (channel clock).
    public var timestampNs: UInt64
    /// What /proc said.
    public var state: ThreadStateSample

    public init(timestampNs: UInt64, state: ThreadStateSample) {
        self.timestampNs = timestampNs
        self.state = state
    }
}
