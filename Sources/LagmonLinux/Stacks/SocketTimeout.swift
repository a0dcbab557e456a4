import CLagmonLinux
import Glibc

/// The timeout of a socket a stopped thread was waiting on (`SO_RCVTIMEO` or `SO_SNDTIMEO`), read
/// through a duplicate of the thread's descriptor (`pidfd_getfd`), never through the number alone.
///
/// The descriptor number comes from the thread's registers: the program chose it, and it may name
/// anything (a pipe, a FIFO, a device, nothing). The duplicate is taken from the stopped thread's
/// own descriptor table (a pidfd of that thread), checked to be a socket with `fstat` and read
/// with `getsockopt`, which never block; it is closed before the thread goes. Anything else (not
/// a socket, the descriptor gone, pidfd_getfd refused) is nil, and the call is left as it was.
enum SocketTimeout {
    /// Which of the socket's timeouts a call waits by.
    enum Direction: Equatable {
        /// `SO_RCVTIMEO`: reads, receives, accepts.
        case receive
        /// `SO_SNDTIMEO`: writes and sends.
        case send
    }

    /// The socket timeout of descriptor `descriptor` of thread `tid` (stopped by lagmon) in
    /// nanoseconds, 0 for none; nil when it is not a socket or cannot be read. The kernel keeps
    /// it in jiffies: it reads back rounded up to a tick (1.25 s is 1.252 s at HZ=250), which
    /// is also how long the call waits.
    static func nanoseconds(tid: pid_t, descriptor: Int32, direction: Direction) -> UInt64? {
        guard descriptor >= 0 else { return nil }
        let pidfd = lagmon_thread_pidfd_open(tid)
        guard pidfd >= 0 else { return nil }
        defer { close(pidfd) }
        let duplicate = lagmon_pidfd_getfd(pidfd, descriptor)
        guard duplicate >= 0 else { return nil }
        defer { close(duplicate) }
        var status = stat()
        guard fstat(duplicate, &status) == 0, status.st_mode & S_IFMT == S_IFSOCK else { return nil }
        var timeout = timeval()
        var length = socklen_t(MemoryLayout<timeval>.size)
        let option = direction == .receive ? SO_RCVTIMEO : SO_SNDTIMEO
        guard getsockopt(duplicate, SOL_SOCKET, option, &timeout, &length) == 0,
            length == socklen_t(MemoryLayout<timeval>.size)
        else { return nil }
        guard (0..<1_000_000).contains(timeout.tv_usec) else { return nil }
        return InterruptedWait.timespecNanoseconds(
            seconds: Int64(timeout.tv_sec), nanoseconds: Int64(timeout.tv_usec) * 1000)
    }
}
