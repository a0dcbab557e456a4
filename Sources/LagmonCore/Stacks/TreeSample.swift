/// When one stack sample of a stall was taken and where in the stall's call tree it ended, so
/// exports can place the samples in time (the trace export's CPU profile).
public struct TreeSample: Sendable, Equatable {
    /// When the thread was paused (channel clock).
    public var timestampNs: UInt64
    /// The call tree node the sample ended in, by depth-first index (`CallTreeBuilder.placed`).
    public var node: Int

    public init(timestampNs: UInt64, node: Int) {
        self.timestampNs = timestampNs
        self.node = node
    }
}
