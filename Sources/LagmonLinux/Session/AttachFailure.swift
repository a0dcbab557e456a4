import Glibc
import LagmonCore

/// Why `lagmon attach` could not start watching a process. Each text names the problem and the
/// fix; docs/troubleshooting.md has them as headings, docs/exit-codes.md their statuses.
public enum AttachFailure: Error, Equatable, CustomStringConvertible {
    /// No process has this pid.
    case noSuchProcess(pid: Int32)
    /// The process has exited (a zombie its parent has not reaped yet).
    case exited(pid: Int32, name: String)
    /// The pid is a thread of another process.
    case notAProcess(tid: Int32, process: Int32)
    /// `--thread` names no thread of the process.
    case noSuchThread(pid: Int32, thread: String, threads: [ThreadRef])
    /// `--thread NAME` names several threads.
    case ambiguousThread(pid: Int32, name: String, tids: [Int32])
    /// lagmon's own pid.
    case lagmonItself(pid: Int32)
    /// `--name NAME` names no live process.
    case noProcessNamed(name: String)
    /// `--name NAME` names several processes.
    case ambiguousName(name: String, pids: [Int32])
    /// `--pid-file PATH` gives no usable pid (`problem` says why).
    case badPidFile(path: String, problem: String)
    /// The kernel refused to let lagmon read the thread (`code` EACCES or EPERM).
    case notPermitted(pid: Int32, name: String, path: String, code: Int32)
    /// Anything else.
    case failed(SystemError)

    public var description: String {
        switch self {
        case .noSuchProcess(let pid):
            "no process with pid \(pid); check the pid (ps -p \(pid)): the process may have exited"
        case .exited(let pid, let name):
            "process \(pid) (\(name)) has already exited; there is nothing to attach to"
        case .notAProcess(let tid, let process):
            "\(tid) is a thread of process \(process), not a process; run lagmon attach \(process) --thread \(tid)"
        case .noSuchThread(let pid, let thread, let threads):
            "process \(pid) has no thread \(thread); its threads: \(Self.list(threads))"
        case .ambiguousThread(let pid, let name, let tids):
            "process \(pid) has \(tids.count) threads named \(name) (\(tids.map(String.init).joined(separator: ", "))); choose one with --thread TID"
        case .lagmonItself(let pid):
            "\(pid) is lagmon's own pid; give the pid of the process to watch"
        case .notPermitted(let pid, let name, let path, let code):
            "cannot attach to pid \(pid) (\(name)): permission denied reading \(path) (\(code == EACCES ? "EACCES" : "EPERM")); run lagmon as root or with CAP_SYS_PTRACE, or as the process's user with /proc/sys/kernel/yama/ptrace_scope at 0 (setuid and other non-dumpable processes need CAP_SYS_PTRACE)"
        case .noProcessNamed(let name):
            "no process is named \(name); check the name (pgrep -x \(name) lists them; names longer than 15 bytes need argv[0] to match), or give the pid"
        case .ambiguousName(let name, let pids):
            "\(pids.count) processes are named \(name) (pids \(pids.prefix(10).map(String.init).joined(separator: ", "))\(pids.count > 10 ? ", …" : "")); --name needs exactly one: give the pid, or --pid-file PATH"
        case .badPidFile(let path, let problem):
            "--pid-file \(QuotedText.printable(path, limit: 200)): \(problem); give a file holding the decimal pid of a running process"
        case .failed(let error):
            "cannot attach: \(error)"
        }
    }

    /// `4242 main, 4250 worker, …` (at most ten).
    private static func list(_ threads: [ThreadRef]) -> String {
        let shown = threads.prefix(10).map { "\($0.tid) \(QuotedText.printable($0.name, limit: 15))" }
        return (shown + (threads.count > 10 ? ["…"] : [])).joined(separator: ", ")
    }
}
