/// Stalls with the same application code at the top of their stacks, grouped.
public struct FingerprintReport: Codable, Sendable, Equatable {
    /// Stable identifier: a hash of `frames` (module and symbol only, no addresses).
    public var id: String
    /// The top application frames that define the group, innermost first, as `module`symbol`.
    public var frames: [String]
    /// Stalls in the group.
    public var count: Int
    /// Their summed duration.
    public var totalNs: UInt64
    /// The longest one.
    public var worstNs: UInt64
    /// Their ids.
    public var stallIds: [Int]

    public init(id: String, frames: [String], count: Int, totalNs: UInt64, worstNs: UInt64, stallIds: [Int]) {
        self.id = id
        self.frames = frames
        self.count = count
        self.totalNs = totalNs
        self.worstNs = worstNs
        self.stallIds = stallIds
    }
}
