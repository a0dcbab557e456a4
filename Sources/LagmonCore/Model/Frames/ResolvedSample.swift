/// A sample after symbolization: frames innermost first.
public struct ResolvedSample: Sendable, Equatable {
    /// The raw sample.
    public var sample: StackSample
    /// One frame per address, innermost first.
    public var frames: [Frame]
    /// The file mappings holding the addresses (each once).
    public var images: [ImageMapping]
    /// The lock holder's frames (`sample.lock?.holder`), innermost first; empty without one.
    public var holderFrames: [Frame] = []

    public init(sample: StackSample, frames: [Frame], images: [ImageMapping] = []) {
        self.sample = sample
        self.frames = frames
        self.images = images
    }
}
