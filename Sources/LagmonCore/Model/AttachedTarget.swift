/// A process lagmon attached to (`lagmon attach`) rather than started: it was running before the
/// session and may outlive it, and its exit status is its parent's to collect, not lagmon's.
public struct AttachedTarget: Sendable, Equatable {
    /// Whether the process ended while lagmon watched it.
    public var exited: Bool

    public init(exited: Bool) {
        self.exited = exited
    }
}
