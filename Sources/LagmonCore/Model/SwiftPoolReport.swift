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

/// A period in which every cooperative pool thread was blocked.
public struct PoolStarvation: Codable, Sendable, Equatable {
    /// When the last pool thread became blocked, since the target started.
    public var startNs: UInt64
    /// How long all of them stayed blocked.
    public var durationNs: UInt64

    public init(startNs: UInt64, durationNs: UInt64) {
        self.startNs = startNs
        self.durationNs = durationNs
    }
}
