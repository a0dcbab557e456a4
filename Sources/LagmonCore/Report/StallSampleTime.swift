/// One stack sample of a stall placed in time: when it was taken and the node of the stall's
/// call tree it ended in, so a trace viewer can show what ran at each moment of the stall.
public struct StallSampleTime: Codable, Sendable, Equatable {
    /// When the thread was paused, nanoseconds after the stall began.
    public var offsetNs: UInt64
    /// The node of `callTree` the sample ended in, by depth-first index: the root is 0, a node
    /// comes before its callees, callees in their order.
    public var node: Int

    public init(offsetNs: UInt64, node: Int) {
        self.offsetNs = offsetNs
        self.node = node
    }
}
