/// The thread that held the lock a stalled loop waited on, and what it was doing meanwhile.
public struct LockHolderReport: Codable, Sendable, Equatable {
    /// Its thread id.
    public var tid: Int32
    /// Its name (`comm`) when it was sampled; empty when it could not be read.
    public var name: String
    /// Whether the holder is the stalled thread itself (it waits on a lock it holds: a
    /// self-deadlock). Absent otherwise.
    public var isWaiter: Bool?
    /// Stack samples of the holder taken during the stall (one after each of the waiter's).
    public var samples: Int
    /// The deepest frame in at least half of the holder's samples, application frames preferred.
    public var culprit: Frame?
    /// The holder's most common distinct stacks, most samples first, frames root first.
    public var stacks: [StackCount]

    public init(tid: Int32, name: String, samples: Int, culprit: Frame?, stacks: [StackCount]) {
        self.tid = tid
        self.name = name
        self.samples = samples
        self.culprit = culprit
        self.stacks = stacks
    }
}
