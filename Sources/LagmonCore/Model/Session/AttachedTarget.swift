/// A process lagmon attached to (`lagmon attach`) rather than started: it was running before the
/// session and may outlive it, and its exit status is its parent's to collect, not lagmon's.
public struct AttachedTarget: Sendable, Equatable {
    /// Whether the process ended while lagmon watched it.
    public var exited: Bool
    /// How many times the process exited and lagmon attached to the one that replaced it
    /// (`--name`, `--pid-file`); `exited` is then the last one's.
    public var restarts = 0

    public init(exited: Bool, restarts: Int = 0) {
        self.exited = exited
        self.restarts = restarts
    }
}
