import LagmonCore

/// How `lagmon attach` was told which process to watch: a pid, a pid file, or a name. A pid file
/// and a name can name the process again after it restarted; a pid cannot.
public enum AttachTargetSource: Sendable, Equatable {
    /// `lagmon attach PID`.
    case pid(Int32)
    /// `--pid-file PATH` (untrusted: read with `PidFile`'s bounds every time).
    case pidFile(String)
    /// `--name NAME` (`ProcessNameMatch`).
    case name(String)

    /// Whether a new process can be found this way once the watched one exited.
    public var findsRestarts: Bool {
        if case .pid = self { return false }
        return true
    }

    /// The process to watch at the start; throws when there is none, or (`--name`) more than one.
    public func resolve(thread: ThreadSelector) throws(AttachFailure) -> AttachTarget {
        switch self {
        case .pid(let pid): return try AttachTarget.resolve(pid: pid, thread: thread)
        case .pidFile(let path): return try AttachTarget.resolve(pid: try PidFile.read(path), thread: thread)
        case .name(let name): return try AttachTarget.resolve(pid: try Self.onlyProcess(named: name), thread: thread)
        }
    }

    /// The process that replaced `previous`, if one can be watched now: nil while the pid file
    /// still names `previous` (or nothing usable), while no process or several have the name,
    /// or while the new process's thread cannot be resolved yet. Never throws: the caller asks
    /// again later.
    public func next(after previous: AttachTarget, thread: ThreadSelector) -> AttachTarget? {
        guard findsRestarts, let target = try? resolve(thread: thread), target.isAnotherProcess(than: previous)
        else { return nil }
        return target
    }

    /// How the source is shown in messages: `named 'app'`, `in the pid file /run/app.pid`.
    public var description: String {
        switch self {
        case .pid(let pid): "with pid \(pid)"
        case .pidFile(let path): "in the pid file \(QuotedText.printable(path, limit: 200))"
        case .name(let name): "named \(QuotedText.printable(name, limit: 100))"
        }
    }

    private static func onlyProcess(named name: String) throws(AttachFailure) -> Int32 {
        let pids = ProcessesByName.pids(named: name)
        let shown = QuotedText.printable(name, limit: 100)
        guard let first = pids.first else { throw .noProcessNamed(name: shown) }
        guard pids.count == 1 else { throw .ambiguousName(name: shown, pids: pids) }
        return first
    }
}
