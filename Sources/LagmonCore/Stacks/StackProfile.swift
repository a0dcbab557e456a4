/// What the stack samples of one stall show: the distinct stacks, the merged call tree, the
/// culprit and the fingerprint (StallProfiler makes it).
public struct StackProfile: Sendable, Equatable {
    /// Samples taken during the stall.
    public var samples: Int
    /// The most common distinct stacks, most samples first, frames root first.
    public var stacks: [StackCount]
    /// Distinct stacks left out of `stacks` by the cap (their samples still count elsewhere).
    public var stacksOmitted: Int
    /// All samples merged into one tree under a synthetic root; nil without samples.
    public var callTree: CallTreeNode?
    /// The deepest frame present in at least half of the samples, application frames first.
    public var culprit: Frame?
    /// Groups this stall with others that ran the same code; nil without frames.
    public var fingerprint: StackFingerprint?
    /// Every sample in the order taken, placed in `callTree`.
    public var timeline: [TreeSample]

    public init(
        samples: Int, stacks: [StackCount], stacksOmitted: Int, callTree: CallTreeNode?, culprit: Frame?,
        fingerprint: StackFingerprint?, timeline: [TreeSample] = []
    ) {
        self.samples = samples
        self.stacks = stacks
        self.stacksOmitted = stacksOmitted
        self.callTree = callTree
        self.culprit = culprit
        self.fingerprint = fingerprint
        self.timeline = timeline
    }

    /// The profile of a stall without samples.
    public static let empty = StackProfile(
        samples: 0, stacks: [], stacksOmitted: 0, callTree: nil, culprit: nil, fingerprint: nil)
}
