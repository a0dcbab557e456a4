/// Blocking calls of one kind from one call site on one loop's thread (StrictMode): calls that
/// do not belong on an event loop's thread, counted whether or not any of them stalled it.
public struct BlockingCallReport: Codable, Sendable, Equatable {
    /// The loop's process.
    public var pid: Int32
    /// The loop's thread.
    public var thread: ThreadRef
    /// The libc function (`read`, `getaddrinfo`, `clock_nanosleep`).
    public var call: String
    /// `file`, `dns`, `connect`, `sleep` or `process`.
    public var category: String
    /// Calls made.
    public var count: UInt64
    /// Time spent in them.
    public var totalNs: UInt64
    /// The longest one.
    public var maxNs: UInt64
    /// Where the loop's code called it (the caller of the libc function); its symbol is nil when
    /// no symbol covers the address.
    public var site: Frame

    public init(
        pid: Int32, thread: ThreadRef, call: String, category: String, count: UInt64, totalNs: UInt64,
        maxNs: UInt64, site: Frame
    ) {
        self.pid = pid
        self.thread = thread
        self.call = call
        self.category = category
        self.count = count
        self.totalNs = totalNs
        self.maxNs = maxNs
        self.site = site
    }
}
