/// /proc/<pid>/task/<tid>/syscall: what a thread was doing in the kernel when read.
public enum ProcSyscall: Sendable, Equatable {
    /// On a CPU (the kernel cannot say more about a running thread).
    case running
    /// In the kernel but not in a system call (`-1 <sp> <pc>`): a page fault, an interrupt.
    case notInSyscall(stackPointer: UInt64, programCounter: UInt64)
    /// Blocked in system call `number` with its six argument registers.
    case inSyscall(number: Int, arguments: [UInt64], stackPointer: UInt64, programCounter: UInt64)

    private static let runningLine = Array("running\n".utf8)

    /// Parses the file's one line; nil when it is truncated (no final newline) or garbled.
    public static func parse(_ bytes: [UInt8]) -> ProcSyscall? {
        if bytes == runningLine { return .running }
        guard bytes.last == ProcText.newline else { return nil }
        let fields = bytes.dropLast().split(separator: ProcText.space, omittingEmptySubsequences: false)
        guard let number = fields.first.flatMap(ProcText.signedDecimal) else { return nil }
        let registers = fields.dropFirst().map(ProcText.hexadecimal)
        guard registers.allSatisfy({ $0 != nil }) else { return nil }
        let values = registers.compactMap { $0 }
        switch (number < 0, values.count) {
        case (true, 2):
            return .notInSyscall(stackPointer: values[0], programCounter: values[1])
        case (false, 8):
            return .inSyscall(
                number: Int(number), arguments: Array(values[0..<6]), stackPointer: values[6], programCounter: values[7]
            )
        default:
            return nil
        }
    }
}

/// x86_64 system call numbers lagmon names, and what kind of wait each one is.
public enum SyscallTable {
    /// Numbers to names for the calls a stalled thread is likely to sit in (from
    /// arch/x86/entry/syscalls/syscall_64.tbl).
    public static let names: [Int: String] = [
        0: "read", 1: "write", 2: "open", 3: "close", 4: "stat", 5: "fstat", 6: "lstat", 7: "poll", 8: "lseek",
        9: "mmap", 10: "mprotect", 11: "munmap", 12: "brk", 16: "ioctl", 17: "pread64", 18: "pwrite64", 19: "readv",
        20: "writev", 21: "access", 22: "pipe", 23: "select", 24: "sched_yield", 25: "mremap", 26: "msync",
        28: "madvise", 32: "dup", 33: "dup2", 34: "pause", 35: "nanosleep", 39: "getpid", 40: "sendfile",
        41: "socket", 42: "connect", 43: "accept", 44: "sendto", 45: "recvfrom", 46: "sendmsg", 47: "recvmsg",
        48: "shutdown", 49: "bind", 50: "listen", 56: "clone", 59: "execve", 60: "exit", 61: "wait4", 62: "kill",
        65: "semop", 69: "msgsnd", 70: "msgrcv", 72: "fcntl", 73: "flock", 74: "fsync", 75: "fdatasync",
        77: "ftruncate", 78: "getdents", 85: "creat", 128: "rt_sigtimedwait", 130: "rt_sigsuspend", 162: "sync",
        202: "futex", 208: "io_getevents", 209: "io_submit", 217: "getdents64", 219: "restart_syscall",
        220: "semtimedop",
        230: "clock_nanosleep", 231: "exit_group", 232: "epoll_wait", 233: "epoll_ctl", 242: "mq_timedsend",
        243: "mq_timedreceive", 247: "waitid", 257: "openat", 262: "newfstatat", 270: "pselect6", 271: "ppoll",
        275: "splice", 276: "tee", 277: "sync_file_range", 278: "vmsplice", 281: "epoll_pwait", 285: "fallocate",
        288: "accept4", 295: "preadv", 296: "pwritev", 299: "recvmmsg", 306: "syncfs", 307: "sendmmsg",
        318: "getrandom", 326: "copy_file_range", 327: "preadv2", 328: "pwritev2", 332: "statx",
        426: "io_uring_enter", 437: "openat2", 441: "epoll_pwait2", 449: "futex_waitv",
    ]

    /// Calls whose first argument is a file descriptor worth resolving (for `sendfile`, the
    /// output; for `splice` and `tee`, the input).
    private static let descriptorCalls: Set<String> = [
        "read", "write", "close", "fstat", "lseek", "ioctl", "pread64", "pwrite64", "readv", "writev", "preadv",
        "pwritev", "preadv2", "pwritev2", "sendfile", "splice", "tee", "copy_file_range", "connect", "accept",
        "accept4", "sendto", "recvfrom", "sendmsg", "recvmsg", "sendmmsg", "recvmmsg", "shutdown", "bind", "listen",
        "fcntl", "flock", "fsync", "fdatasync", "syncfs", "sync_file_range", "ftruncate", "fallocate", "getdents",
        "getdents64", "epoll_wait", "epoll_pwait", "epoll_pwait2", "epoll_ctl", "io_uring_enter",
    ]
    private static let sleepCalls: Set<String> = ["nanosleep", "clock_nanosleep", "pause"]
    /// The calls event loops sleep in between iterations (libuv, asyncio, GLib, CFRunLoop,
    /// SwiftNIO, plain epoll loops), by number: the /proc probe asks a thousand times a second.
    private static let eventLoopWaitNumbers: Set<Int> = Set(
        names.filter {
            ["epoll_wait", "epoll_pwait", "epoll_pwait2", "poll", "ppoll", "select", "pselect6"].contains($0.value)
        }
        .keys)
    private static let lockWaitCalls: Set<String> = ["futex", "futex_waitv"]

    /// The call's name, or `syscall_<n>` when lagmon does not know it.
    public static func name(_ number: Int) -> String {
        names[number] ?? "syscall_\(number)"
    }

    /// Whether the first argument is a file descriptor (so /proc/<pid>/fd/<n> says what it waits on).
    public static func takesDescriptor(_ number: Int) -> Bool {
        names[number].map(descriptorCalls.contains) ?? false
    }

    /// Whether the call is a deliberate sleep (`nanosleep`, `clock_nanosleep`, `pause`).
    public static func isSleep(_ number: Int) -> Bool {
        names[number].map(sleepCalls.contains) ?? false
    }

    /// Whether the call is one an event loop waits for its next events in (`epoll_wait`,
    /// `epoll_pwait`, `epoll_pwait2`, `poll`, `ppoll`, `select`, `pselect6`): a thread asleep in
    /// one is idle between iterations.
    public static func isEventLoopWait(_ number: Int) -> Bool {
        eventLoopWaitNumbers.contains(number)
    }

    /// `restart_syscall`: the kernel resuming a call that a stop interrupted (`poll`, `select`,
    /// `nanosleep`, `futex` with a timeout, after a ptrace or job-control stop — lagmon's own
    /// stack samples among them). The thread is still in the call it was in before.
    public static let restartNumber = 219

    /// Whether the call waits for a lock (`futex`, `futex_waitv`).
    public static func isLockWait(_ number: Int) -> Bool {
        names[number].map(lockWaitCalls.contains) ?? false
    }
}
