#if !arch(x86_64)
    #error(
        "lagmon supports Linux on x86_64 only (README); a port adds the architecture's numbers in a file like this one")
#endif

extension SyscallTable {
    /// x86_64 numbers to names for the calls a stalled thread is likely to sit in (from
    /// arch/x86/entry/syscalls/syscall_64.tbl).
    public static let names: [Int: String] = [
        0: "read", 1: "write", 2: "open", 3: "close", 4: "stat", 5: "fstat", 6: "lstat", 7: "poll", 8: "lseek",
        9: "mmap", 10: "mprotect", 11: "munmap", 12: "brk", 16: "ioctl", 17: "pread64", 18: "pwrite64", 19: "readv",
        20: "writev", 21: "access", 22: "pipe", 23: "select", 24: "sched_yield", 25: "mremap", 26: "msync",
        28: "madvise", 32: "dup", 33: "dup2", 34: "pause", 35: "nanosleep", 39: "getpid", 40: "sendfile",
        41: "socket", 42: "connect", 43: "accept", 44: "sendto", 45: "recvfrom", 46: "sendmsg", 47: "recvmsg",
        48: "shutdown", 49: "bind", 50: "listen", 56: "clone", 57: "fork", 58: "vfork", 59: "execve", 60: "exit",
        61: "wait4", 62: "kill",
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

    /// `restart_syscall`: the kernel resuming a call that a stop interrupted (`poll`, `select`,
    /// `nanosleep`, `futex` with a timeout, after a ptrace or job-control stop — lagmon's own
    /// stack samples among them). The thread is still in the call it was in before.
    public static let restartNumber = 219

}
