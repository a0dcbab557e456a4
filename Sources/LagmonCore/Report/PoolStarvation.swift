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
