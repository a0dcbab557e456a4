/// Bounds the `process` and `loop` label pairs of the loop and stall series: the first
/// `maxPairs` pairs seen keep their names, later ones share `other`/`other`. Loops are threads
/// of the watched processes, so only `--loops all --follow-children` on a program that keeps
/// starting new ones could reach the bound.
public struct LoopLabels: Sendable {
    /// The label value shared past the bound.
    public static let other = "other"
    /// Distinct pairs kept, at most.
    public let maxPairs: Int
    private var pairs: Set<Pair> = []

    /// A process name and loop name.
    public struct Pair: Hashable, Sendable {
        public var process: String
        public var loop: String
        public init(process: String, loop: String) {
            self.process = process
            self.loop = loop
        }
    }

    public init(maxPairs: Int = 256) {
        self.maxPairs = maxPairs
    }

    /// The labels to use for a loop named `loop` in process `process`.
    public mutating func labels(process: String, loop: String) -> Pair {
        let pair = Pair(process: process, loop: loop)
        if pairs.contains(pair) { return pair }
        guard pairs.count < maxPairs else { return Pair(process: Self.other, loop: Self.other) }
        pairs.insert(pair)
        return pair
    }
}
