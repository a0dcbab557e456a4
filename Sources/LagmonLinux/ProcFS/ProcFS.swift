import Glibc
import LagmonCore

/// Reads the target's threads from /proc. Threads come and go between a listing and a read, so
/// a file that is gone is an answer (nil), not an error. Every file is read with one `read(2)`:
/// these are called right before a thread is paused, where a few microseconds matter.
public enum ProcFS {
    /// The most bytes read from one file: a stat line is about 350 bytes.
    static let readLimit = 4096

    /// Clock ticks per second of the CPU times in stat files (`sysconf(_SC_CLK_TCK)`, 100 on Linux).
    public static var ticksPerSecond: UInt64 {
        UInt64(max(sysconf(Int32(_SC_CLK_TCK)), 1))
    }

    /// Thread ids of process `pid`, ascending, at most `limit` of them; empty when the process
    /// is gone.
    public static func taskIDs(pid: Int32, limit: Int = 65_536) -> [Int32] {
        guard let directory = opendir("/proc/\(pid)/task") else { return [] }
        defer { closedir(directory) }
        var tids: [Int32] = []
        while tids.count < limit, let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if let tid = Int32(name), tid > 0 { tids.append(tid) }
        }
        return tids.sorted()
    }

    /// How many threads the process of `taskDirectory` (an open `/proc/<pid>/task`) has now: the
    /// kernel gives that directory a link count of its thread count plus two, so one `fstat`
    /// answers whatever the number of threads (listing them costs ~0.5 ms at 1000). Nil when the
    /// count is not usable (fstat failed, or a link count below two).
    static func threadCount(taskDirectory: Int32) -> Int? {
        var info = stat()
        guard fstat(taskDirectory, &info) == 0, info.st_nlink >= 2 else { return nil }
        return Int(info.st_nlink) - 2
    }

    /// The contents of a small file (one read of at most 4 KiB), or nil when it cannot be read:
    /// gone (ENOENT, ESRCH: the thread exited), or not permitted (EACCES, EPERM: `syscall` and
    /// `wchan` need ptrace access to the target).
    public static func readFile(_ path: String) -> [UInt8]? {
        try? read(path).get()
    }

    /// The parent of process `pid` (`/proc/<pid>/stat`); nil when it is gone.
    public static func parentPid(_ pid: Int32) -> Int32? {
        readFile("/proc/\(pid)/stat").flatMap(ProcessLineage.parentPid(statLine:))
    }

    /// Whether `tid` is one of process `pid`'s threads now (`/proc/<pid>/task/<tid>` exists:
    /// `task` lists only the process's own threads).
    public static func isThread(_ tid: Int32, of pid: Int32) -> Bool {
        tid > 0 && pid > 0 && access(taskPath(pid: pid, tid: tid, ""), F_OK) == 0
    }

    /// The thread's stat line, parsed; nil when it is gone.
    public static func taskStat(pid: Int32, tid: Int32) -> ProcTaskStat? {
        readFile(taskPath(pid: pid, tid: tid, "stat")).flatMap(ProcTaskStat.parse)
    }

    /// What the thread is doing now: scheduler state, the system call it sits in (with what its
    /// descriptor designates), the kernel function it sleeps in, its CPU and run-queue time.
    /// Nil when the thread is gone; parts the kernel would not give are nil or zero.
    public static func threadState(pid: Int32, tid: Int32) -> ThreadStateSample? {
        guard let stat = taskStat(pid: pid, tid: tid) else { return nil }
        let schedstat = readFile(taskPath(pid: pid, tid: tid, "schedstat")).flatMap(ProcSchedstat.parse)
        var state = ThreadStateSample(
            state: stat.state, syscall: syscall(pid: pid, tid: tid),
            wchan: readFile(taskPath(pid: pid, tid: tid, "wchan")).flatMap(wchanName),
            runDelayNs: schedstat?.runDelayNs ?? 0, onCPUNs: schedstat?.onCPUNs ?? 0)
        state.majorFaults = stat.majorFaults
        state.lastCPU = stat.processor
        if stat.state == .diskSleep {
            // Where in the kernel it cannot be woken (root only; nil when unreadable).
            state.kernelStack = readFile(taskPath(pid: pid, tid: tid, "stack")).map(ProcKernelStack.parse)
        }
        return state
    }

    /// Only the thread's scheduler state and counters (stat and schedstat: run-queue delay, CPU
    /// time, major faults); no system call, wait channel or kernel stack. Cheap enough for the
    /// watchdog's thread, and nothing in it waits on the target (/proc/…/syscall can, while the
    /// target execs).
    public static func threadCounters(pid: Int32, tid: Int32) -> ThreadStateSample? {
        guard let stat = taskStat(pid: pid, tid: tid) else { return nil }
        let schedstat = readFile(taskPath(pid: pid, tid: tid, "schedstat")).flatMap(ProcSchedstat.parse)
        var state = ThreadStateSample(
            state: stat.state, syscall: nil, wchan: nil, runDelayNs: schedstat?.runDelayNs ?? 0,
            onCPUNs: schedstat?.onCPUNs ?? 0)
        state.majorFaults = stat.majorFaults
        return state
    }

    /// The system call the thread is blocked in, nil when it runs or is not in one.
    static func syscall(pid: Int32, tid: Int32) -> SyscallInfo? {
        let text = readFile(taskPath(pid: pid, tid: tid, "syscall"))
        guard case .inSyscall(let number, let arguments, _, _) = text.flatMap(ProcSyscall.parse) else { return nil }
        var info = SyscallInfo(number: number, name: SyscallTable.name(number), arguments: arguments)
        if SyscallTable.takesDescriptor(number), let first = arguments.first {
            info.descriptorTarget = descriptorTarget(pid: pid, tid: tid, descriptor: first)
        }
        return info
    }

    /// What descriptor `register` (a system call's first argument) designates for the thread:
    /// `pipe:[1234]`, `socket:[5678]`, a path. The thread's own fd table, which is the process's
    /// unless the thread unshared it.
    static func descriptorTarget(pid: Int32, tid: Int32, descriptor register: UInt64) -> String? {
        // The kernel reads an int from the register: only the low 32 bits count.
        let descriptor = Int32(truncatingIfNeeded: register)
        guard descriptor >= 0 else { return nil }
        return try? readLink(taskPath(pid: pid, tid: tid, "fd/\(descriptor)")).get()
    }

    /// The wchan file holds a symbol, or `0` when the thread is not sleeping (or symbols are
    /// hidden); no trailing newline.
    static func wchanName(_ bytes: [UInt8]) -> String? {
        let name = String(decoding: bytes.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        return name.isEmpty || name == "0" ? nil : name
    }

    static func taskPath(pid: Int32, tid: Int32, _ file: String) -> String {
        "/proc/\(pid)/task/\(tid)/\(file)"
    }

    // MARK: System calls (EINTR retried by `retryingInterrupts`)

    /// open, one read, close.
    static func read(_ path: String) -> Result<[UInt8], SystemError> {
        Result {
            let descriptor = try retryingInterrupts("open") { open(path, O_RDONLY | O_CLOEXEC) }
            defer { close(descriptor) }
            var failure: SystemError?
            let bytes = [UInt8](unsafeUninitializedCapacity: readLimit) { buffer, count in
                do {
                    count = try retryingInterrupts("read") { Glibc.read(descriptor, buffer.baseAddress, buffer.count) }
                } catch {
                    failure = error as? SystemError
                    count = 0
                }
            }
            if let failure { throw failure }
            return bytes
        }.mapError { $0 as? SystemError ?? SystemError("read", code: EIO) }
    }

    /// readlink(2), at most PATH_MAX bytes.
    static func readLink(_ path: String) -> Result<String, SystemError> {
        Result {
            var target = [CChar](repeating: 0, count: Int(PATH_MAX))
            let count = try retryingInterrupts("readlink") { readlink(path, &target, target.count) }
            return String(decoding: target.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }.mapError { $0 as? SystemError ?? SystemError("readlink", code: EIO) }
    }
}
