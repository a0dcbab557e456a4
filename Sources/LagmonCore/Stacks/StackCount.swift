/// A unique stack seen during a stall and how many samples showed it.
public struct StackCount: Codable, Sendable, Equatable {
    /// Samples with exactly this stack.
    public var count: Int
    /// Frames, root (thread entry) first.
    public var frames: [Frame]

    public init(count: Int, frames: [Frame]) {
        self.count = count
        self.frames = frames
    }
}
