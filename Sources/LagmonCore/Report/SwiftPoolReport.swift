/// Swift's cooperative thread pool as lagmon saw it: how wide it was, how many of its threads
/// were blocked at once, and when all of them were (every task in the program was starved).
public struct SwiftPoolReport: Codable, Sendable, Equatable {
    /// The most pool threads alive at once (threads that ran at least one job).
    public var width: Int
    /// The most pool threads blocked (in a job longer than the threshold) at the same time.
    public var maxBlockedThreads: Int
    /// Total time every pool thread was blocked at once.
    public var starvedNs: UInt64
    /// Each period in which every pool thread was blocked, in order.
    public var starvations: [PoolStarvation]

    public init(width: Int, maxBlockedThreads: Int, starvedNs: UInt64, starvations: [PoolStarvation]) {
        self.width = width
        self.maxBlockedThreads = maxBlockedThreads
        self.starvedNs = starvedNs
        self.starvations = starvations
    }
}
