/// A descendant of the target that was still running, with an event loop, when the target
/// exited, and that lagmon did not watch (no `--follow-children`).
public struct LeftProcess: Codable, Sendable, Equatable {
    /// Its pid.
    public var pid: Int32
    /// Its command name (`/proc/<pid>/comm`), printable.
    public var name: String

    public init(pid: Int32, name: String) {
        self.pid = pid
        self.name = name
    }
}
