/// Bounds the stack samples a long-running session keeps of one busy period, however long it
/// lasts, while keeping them spread evenly over it: every sample is taken until `capacity` are
/// held; then every other one held goes (the first stays: it carries the period's run-queue and
/// fault evidence) and from then on only every other sample offered is taken, and so on, halving
/// the density each time the samples reach `capacity` again. The samples kept are those offered
/// at multiples of `stride`, never more than `capacity`.
public struct SampleThinning: Sendable, Equatable {
    /// Samples kept at most (at least 2).
    public let capacity: Int
    /// One sample offered in `stride` is taken (a power of two).
    public private(set) var stride = 1
    /// Samples offered so far.
    public private(set) var offered = 0

    public init(capacity: Int) {
        self.capacity = max(2, capacity)
    }

    /// Whether the next sample offered is to be taken.
    public mutating func admitsNext() -> Bool {
        defer { offered += 1 }
        return offered % stride == 0
    }

    /// Halves `samples` (those taken so far, oldest first) once they reached `capacity`, keeping
    /// the first and every other one after it, and halves the density of those taken from now
    /// on. Returns the samples let go.
    public mutating func thin<Sample>(_ samples: inout [Sample]) -> [Sample] {
        guard samples.count >= capacity else { return [] }
        var kept: [Sample] = []
        var dropped: [Sample] = []
        kept.reserveCapacity(samples.count / 2 + 1)
        for (index, sample) in samples.enumerated() {
            if index % 2 == 0 { kept.append(sample) } else { dropped.append(sample) }
        }
        samples = kept
        stride *= 2
        return dropped
    }
}
