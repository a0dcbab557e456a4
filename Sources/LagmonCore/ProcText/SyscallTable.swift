/// The system calls lagmon names, and what kind of wait each one is. The numbers are the
/// architecture's (`SyscallTable+x86_64.swift`); every set of calls here is by name, so it holds
/// on any architecture.
public enum SyscallTable {
    /// Calls whose first argument is a file descriptor worth resolving (for `sendfile`, the
    /// output; for `splice` and `tee`, the input).
    private static let descriptorCalls: Set<String> = [
        "read", "write", "close", "fstat", "lseek", "ioctl", "pread64", "pwrite64", "readv", "writev", "preadv",
        "pwritev", "preadv2", "pwritev2", "sendfile", "splice", "tee", "copy_file_range", "connect", "accept",
        "accept4", "sendto", "recvfrom", "sendmsg", "recvmsg", "sendmmsg", "recvmmsg", "shutdown", "bind", "listen",
        "fcntl", "flock", "fsync", "fdatasync", "syncfs", "sync_file_range", "ftruncate", "fallocate", "getdents",
        "getdents64", "epoll_wait", "epoll_pwait", "epoll_pwait2", "epoll_ctl", "io_uring_enter",
    ]
    /// Calls that sleep on purpose.
    static let sleepCalls: Set<String> = ["nanosleep", "clock_nanosleep", "pause"]
    /// The calls event loops sleep in between iterations (libuv, asyncio, GLib, CFRunLoop,
    /// SwiftNIO, plain epoll loops), by number: the /proc probe asks a thousand times a second.
    private static let eventLoopWaitNumbers: Set<Int> = Set(
        names.filter {
            ["epoll_wait", "epoll_pwait", "epoll_pwait2", "poll", "ppoll", "select", "pselect6"].contains($0.value)
        }
        .keys)
    /// Calls that wait for a lock.
    static let lockWaitCalls: Set<String> = ["futex", "futex_waitv"]

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

    /// Whether the call waits for a lock (`futex`, `futex_waitv`).
    public static func isLockWait(_ number: Int) -> Bool {
        names[number].map(lockWaitCalls.contains) ?? false
    }
}
