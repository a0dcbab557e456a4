/// Blocking calls of one kind made from one call site on one loop's thread, as the probe
/// aggregated them (StrictMode).
public struct BlockingCallRecord: Sendable, Equatable {
    /// The call.
    public var call: BlockingCall
    /// The return address of the call into libc, in the target's address space.
    public var siteAddress: UInt64
    /// Calls made.
    public var count: UInt64
    /// Time spent in them, and in the longest one.
    public var totalNs: UInt64
    public var maxNs: UInt64
    /// The call site symbolized (nil until lagmon looked it up, or when it could not).
    public var site: Frame?

    public init(call: BlockingCall, siteAddress: UInt64, count: UInt64, totalNs: UInt64, maxNs: UInt64) {
        self.call = call
        self.siteAddress = siteAddress
        self.count = count
        self.totalNs = totalNs
        self.maxNs = maxNs
    }

    /// A record as the channel holds it, if its numbers can be true: a known call, at least one
    /// call, none longer than the longest, all of them no longer than `count` times it.
    public init?(callCode: UInt32, siteAddress: UInt64, count: UInt64, totalNs: UInt64, maxNs: UInt64) {
        guard let call = BlockingCall(rawValue: callCode), count > 0, maxNs <= totalNs else { return nil }
        let (bound, overflow) = count.multipliedReportingOverflow(by: maxNs)
        guard overflow || totalNs <= bound else { return nil }
        self.init(call: call, siteAddress: siteAddress, count: count, totalNs: totalNs, maxNs: maxNs)
    }
}
