/// Turns the stack samples of one stall into its profile: distinct stacks with sample counts,
/// the merged call tree, the culprit and the fingerprint. Pure and deterministic: the same
/// samples give the same profile whatever order they come in.
///
/// - **Distinct stacks** compare frames by FrameIdentity (module + symbol), so samples at
///   different instructions of the same functions count as one stack; a stack's offsets, files
///   and lines are those of its earliest sample.
/// - **Culprit**: the deepest frame present in at least half of the samples. When a frame of the
///   user's interpreted code (a Python or JavaScript function outside the runtime's libraries)
///   meets that rule, the deepest such one wins; else the deepest application frame
///   (ModuleClassifier), else the deepest system frame. Deepest = nearest the executing function: the smallest mean distance from the
///   innermost frame over the samples containing it (then more samples, then by name). Distance
///   from the leaf, unlike depth from the root, survives unwinds that stopped early.
/// - **Fingerprint**: StackFingerprint of the most common stack containing the culprit, read
///   from the culprit outwards (without a culprit, the most common stack from its innermost
///   frame). Frames above the culprit are in fewer than half of the samples, so they would make
///   the fingerprint of one and the same stall vary.
public struct StallProfiler: Sendable {
    /// Distinct stacks listed per stall, at most.
    public var maxStacks: Int
    /// Bounds of the call tree.
    public var callTree: CallTreeBuilder

    public init(maxStacks: Int = 20, callTree: CallTreeBuilder = CallTreeBuilder()) {
        self.maxStacks = maxStacks
        self.callTree = callTree
    }

    /// The profile of `samples` (frames innermost first, as symbolized).
    public func profile(_ samples: [ResolvedSample]) -> StackProfile {
        guard !samples.isEmpty else { return .empty }
        let stacks = Self.distinctStacks(samples)
        let rootFirst = stacks.map { StackCount(count: $0.count, frames: $0.frames.reversed()) }
        let culprit = Self.culprit(stacks, samples: samples.count)
        let (tree, leaves) = callTree.placed(rootFirst)
        return StackProfile(
            samples: samples.count, stacks: Array(rootFirst.prefix(maxStacks)),
            stacksOmitted: max(0, stacks.count - maxStacks), callTree: tree,
            culprit: culprit.map { Self.placed($0.frames[$0.depth], in: stacks) },
            fingerprint: StackFingerprint(anchor: culprit.map { $0.frames[$0.depth...] } ?? stacks[0].frames[...]),
            timeline: Self.timeline(samples, stacks: stacks, leaves: leaves))
    }

    /// Each sample, in the order taken, with the call tree node its distinct stack ended in.
    static func timeline(_ samples: [ResolvedSample], stacks: [DistinctStack], leaves: [Int]) -> [TreeSample] {
        var leafByIdentities: [[FrameIdentity]: Int] = [:]
        for (stack, leaf) in zip(stacks, leaves) { leafByIdentities[stack.identities] = leaf }
        return chronological(samples).map { sample in
            TreeSample(
                timestampNs: sample.sample.timestampNs,
                node: leafByIdentities[sample.frames.map(FrameIdentity.init)] ?? 0)
        }
    }

    /// `samples` by time taken (the order given among equal times).
    static func chronological(_ samples: [ResolvedSample]) -> [ResolvedSample] {
        samples.enumerated().sorted {
            ($0.element.sample.timestampNs, $0.offset) < ($1.element.sample.timestampNs, $1.offset)
        }.map(\.element)
    }

    /// One distinct stack: identities and representative frames, innermost first.
    struct DistinctStack {
        var identities: [FrameIdentity]
        var frames: [Frame]
        var count: Int
    }

    /// Distinct stacks, most samples first, then by identities from the root.
    static func distinctStacks(_ samples: [ResolvedSample]) -> [DistinctStack] {
        var stacks: [DistinctStack] = []
        var indexByIdentities: [[FrameIdentity]: Int] = [:]
        for sample in chronological(samples) {
            let identities = sample.frames.map(FrameIdentity.init)
            if let index = indexByIdentities[identities] {
                stacks[index].count += 1
            } else {
                indexByIdentities[identities] = stacks.count
                stacks.append(DistinctStack(identities: identities, frames: sample.frames, count: 1))
            }
        }
        return stacks.sorted { a, b in
            if a.count != b.count { return a.count > b.count }
            return a.identities.reversed().lexicographicallyPrecedes(b.identities.reversed())
        }
    }

    /// How often a frame appears and how far from the leaf.
    private struct Presence {
        var samples = 0
        /// Sum over those samples of the distance of its innermost occurrence from the leaf.
        var leafDistanceSum = 0
    }

    /// The culprit's identity, in the first (most common) stack containing it, at `depth` from
    /// the innermost frame. Nil when no frame is in half of the samples.
    static func culprit(_ stacks: [DistinctStack], samples: Int) -> (frames: [Frame], depth: Int)? {
        var presence: [FrameIdentity: Presence] = [:]
        for stack in stacks {
            var seen = Set<FrameIdentity>()
            for (distance, identity) in stack.identities.enumerated() where seen.insert(identity).inserted {
                presence[identity, default: Presence()].samples += stack.count
                presence[identity, default: Presence()].leafDistanceSum += distance * stack.count
            }
        }
        let majority = presence.filter { 2 * $0.value.samples >= samples }
        // The user's interpreted code first (Python, JavaScript), then native application code.
        let source = majority.filter { $0.key.isApplicationSource }
        let application = majority.filter { $0.key.isApplication }
        let pool = !source.isEmpty ? source : application.isEmpty ? majority : application
        guard let winner = pool.min(by: isDeeper)?.key else { return nil }
        for stack in stacks {
            if let depth = stack.identities.firstIndex(of: winner) { return (stack.frames, depth) }
        }
        return nil
    }

    /// `culprit` with a source line: its own, else that of the most common stack where the same
    /// function has one (an instruction the line table gives line 0, such as a loop's back
    /// edge, may be the most sampled pc of a function whose other samples have lines).
    static func placed(_ culprit: Frame, in stacks: [DistinctStack]) -> Frame {
        guard culprit.file == nil || culprit.line == nil else { return culprit }
        let identity = FrameIdentity(culprit)
        for stack in stacks {
            guard let index = stack.identities.firstIndex(of: identity), stack.frames[index].line != nil,
                let file = stack.frames[index].file
            else { continue }
            var placed = culprit
            placed.file = file
            placed.line = stack.frames[index].line
            return placed
        }
        return culprit
    }

    /// Nearer the leaf on average; then in more samples; then by name, for determinism.
    private static func isDeeper(_ a: (key: FrameIdentity, value: Presence), _ b: (key: FrameIdentity, value: Presence))
        -> Bool
    {
        let left = a.value.leafDistanceSum * b.value.samples
        let right = b.value.leafDistanceSum * a.value.samples
        if left != right { return left < right }
        if a.value.samples != b.value.samples { return a.value.samples > b.value.samples }
        return a.key < b.key
    }
}
