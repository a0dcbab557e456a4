/// One stack sample of the thread that held the lock a stalled loop waited on, taken right
/// after the waiter's sample, before symbolization.
public struct LockHolderSample: Sendable, Equatable {
    /// The holder's thread id (a thread of the waiter's process, checked in /proc).
    public var tid: Int32
    /// Its name (`comm`) when it was sampled.
    public var name: String
    /// Instruction addresses, innermost first; empty when the holder could not be stopped.
    public var addresses: [UInt64]
    /// How the unwind ended.
    public var outcome: UnwindOutcome
    /// How long the holder was stopped for this sample.
    public var pauseNs: UInt64
    /// The holder's /proc state just before the pause.
    public var state: ThreadStateSample?

    public init(
        tid: Int32, name: String, addresses: [UInt64], outcome: UnwindOutcome, pauseNs: UInt64,
        state: ThreadStateSample?
    ) {
        self.tid = tid
        self.name = name
        self.addresses = addresses
        self.outcome = outcome
        self.pauseNs = pauseNs
        self.state = state
    }
}
