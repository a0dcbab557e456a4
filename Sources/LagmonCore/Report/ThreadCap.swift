/// The per-thread CPU table left threads out: the target had more threads than lagmon reads in
/// one pass over /proc (a bound on its cost), and only the first ones, by thread id, were read.
public struct ThreadCap: Codable, Sendable, Equatable {
    /// Threads read per pass, at most.
    public var limit: Int
    /// The most threads the target had at a listing that found more than `limit`.
    public var threadsSeen: Int

    public init(limit: Int, threadsSeen: Int) {
        self.limit = limit
        self.threadsSeen = threadsSeen
    }

    /// Both caps of two sessions' parts (a target's incarnations): the larger count seen.
    public func merged(with other: ThreadCap?) -> ThreadCap {
        guard let other else { return self }
        return ThreadCap(limit: max(limit, other.limit), threadsSeen: max(threadsSeen, other.threadsSeen))
    }
}
