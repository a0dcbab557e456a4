import Glibc
import LagmonCore

/// The process `lagmon attach` watches and the thread whose loop it watches, resolved from /proc
/// and checked before anything starts. These files are world-readable: permission problems show
/// only when the thread's `syscall` file is opened (`ProcLoopFiles`).
public struct AttachTarget: Sendable, Equatable {
    /// The process id.
    public var pid: Int32
    /// Its command line (/proc/<pid>/cmdline, at most 4 KiB), or its name when that is empty.
    public var command: [String]
    /// The process's name (comm).
    public var name: String
    /// The watched thread.
    public var thread: ThreadRef
    /// When the process started (clock ticks since boot, /proc/<pid>/stat): a pid the kernel
    /// gave again to a new process has another.
    public var startTimeTicks: UInt64 = 0
    /// Its parent when it was resolved (0 when unknown).
    public var ppid: Int32 = 0

    /// Checks that `pid` is a live process other than lagmon and picks its thread `selector`
    /// (`.main`, `.tid`, `.name`; `.any` reads as `.main`).
    public static func resolve(pid: Int32, thread selector: ThreadSelector) throws(AttachFailure) -> AttachTarget {
        guard pid != getpid() else { throw .lagmonItself(pid: pid) }
        guard let stat = ProcFS.readFile("/proc/\(pid)/stat").flatMap(ProcTaskStat.parse) else {
            throw .noSuchProcess(pid: pid)
        }
        guard stat.state != .zombie && stat.state != .dead else { throw .exited(pid: pid, name: stat.comm) }
        if let status = ProcFS.readFile("/proc/\(pid)/status"),
            let process = ProcProcessText.statusNumber("Tgid", in: status), process != pid
        {
            throw .notAProcess(tid: pid, process: process)
        }
        let arguments = ProcFS.readFile("/proc/\(pid)/cmdline").map(ProcProcessText.commandLine) ?? []
        var target = AttachTarget(
            pid: pid, command: arguments.isEmpty ? [stat.comm] : arguments, name: stat.comm,
            thread: try thread(selector, of: pid, comm: stat.comm))
        target.startTimeTicks = stat.startTimeTicks
        target.ppid = ProcFS.parentPid(pid) ?? 0
        return target
    }

    /// Whether `other` is another process than this one (another pid, or the same pid given
    /// again to a process started later).
    public func isAnotherProcess(than other: AttachTarget) -> Bool {
        pid != other.pid || startTimeTicks != other.startTimeTicks
    }

    private static func thread(_ selector: ThreadSelector, of pid: Int32, comm: String) throws(AttachFailure)
        -> ThreadRef
    {
        switch selector {
        case .main, .any:
            return ThreadRef(tid: pid, name: ProcFS.taskStat(pid: pid, tid: pid)?.comm ?? comm)
        case .tid(let tid):
            guard let stat = ProcFS.taskStat(pid: pid, tid: tid) else {
                throw .noSuchThread(pid: pid, thread: String(tid), threads: threads(of: pid))
            }
            return ThreadRef(tid: tid, name: stat.comm)
        case .name(let name):
            let all = threads(of: pid)
            let matching = all.filter { $0.name == name }
            guard let first = matching.first else {
                throw .noSuchThread(pid: pid, thread: QuotedText.printable(name, limit: 15), threads: all)
            }
            guard matching.count == 1 else {
                throw .ambiguousThread(pid: pid, name: QuotedText.printable(name, limit: 15), tids: matching.map(\.tid))
            }
            return first
        }
    }

    /// The process's threads, by id.
    private static func threads(of pid: Int32) -> [ThreadRef] {
        ProcFS.taskIDs(pid: pid, limit: 4096).compactMap { tid in
            ProcFS.taskStat(pid: pid, tid: tid).map { ThreadRef(tid: tid, name: $0.comm) }
        }
    }
}
