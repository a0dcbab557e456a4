/// The lock a stalled loop waited on (stalls diagnosed `lock`): its kind, the thread that held
/// it and what that thread was doing, or why no holder can be named.
public struct LockWaitReport: Codable, Sendable, Equatable {
    /// `mutex`, `recursive mutex`, `error-checking mutex`, `adaptive mutex`, `PI mutex`,
    /// `Swift Mutex`, `rwlock`, `condition variable`, `semaphore`, or `futex` (none of those).
    public var kind: String
    /// The futex word's address in the target.
    public var futexAddress: UInt64
    /// The loop's samples that found it waiting on this word.
    public var samples: Int
    /// The thread the lock records as its owner; absent when it records none.
    public var holder: LockHolderReport?
    /// Readers holding a rwlock in its read phase (a read lock records no owner); absent otherwise.
    public var readers: UInt32?
    /// Why no holder is named, when none is: `condition variables record no owner`, …
    public var noHolderReason: String?

    public init(kind: String, futexAddress: UInt64, samples: Int) {
        self.kind = kind
        self.futexAddress = futexAddress
        self.samples = samples
    }
}
