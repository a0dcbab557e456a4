/// A file a target process named (in its memory map, or by convention: its perf map) that lagmon
/// could not read, and why: what its stacks lack because of it (native names, Python or JIT
/// frames) is then said in the report, not silently missing.
public struct TargetFileProblem: Error, Sendable, Equatable, Hashable, Codable {
    /// The process that named the file.
    public var pid: Int32
    /// The path as the process names it (inside its own mount namespace and root).
    public var path: String
    /// Why it was not read, with the error: `no such file in the process's root (ENOENT)`.
    public var reason: String

    public init(pid: Int32, path: String, reason: String) {
        self.pid = pid
        self.path = path
        self.reason = reason
    }

    /// `path (pid N): reason`.
    public var text: String { "\(path) (pid \(pid)): \(reason)" }
}
