import CLagmonLinux
import Glibc

/// One exchange with a JVM's attach listener: connect to its socket (through the /tmp descriptor,
/// so nothing outside that directory is reached), check that the JVM itself answers
/// (SO_PEERCRED), send a command, read the reply; non-blocking, every wait bounded by the
/// deadline.
enum JVMAttachConnection {
    /// Sends `command` (the command and its arguments) to the listener of JVM `pid` at
    /// `socketName` in `tmp`; returns the reply after its result line, or why it failed.
    static func run(tmp: JVMTmpDirectory, socketName: String, pid: Int32, command: [String], deadlineNs: UInt64)
        -> Result<String, JVMAttach.Failure>
    {
        let fd = socket(
            AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failure(JVMAttach.Failure(reason: "no socket: errno \(errno)")) }
        defer { close(fd) }
        guard connect(fd, path: "/proc/self/fd/\(tmp.descriptor)/\(socketName)") else {
            return .failure(JVMAttach.Failure(reason: "its attach socket refused the connection (errno \(errno))"))
        }
        var peer: pid_t = 0
        guard lagmon_socket_peer_pid(fd, &peer) == 0, peer == pid else {
            return .failure(JVMAttach.Failure(reason: "its attach socket is served by another process"))
        }
        // Protocol version 1, then the command and its arguments, each ended by a NUL.
        let request: [UInt8] = (["1"] + command).flatMap { word -> [UInt8] in Array(word.utf8) + [0] }
        guard write(fd, request, deadlineNs: deadlineNs) else {
            return .failure(JVMAttach.Failure(reason: "its attach listener did not take the request in time"))
        }
        let reply = String(decoding: read(fd, deadlineNs: deadlineNs), as: UTF8.self)
        let lines = reply.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
        guard let result = lines.first.flatMap({ Int($0) }) else {
            return .failure(JVMAttach.Failure(reason: "its attach listener gave no result in time"))
        }
        let text = lines.count > 1 ? String(lines[1]) : ""
        guard result == 0 else {
            return .failure(JVMAttach.Failure(reason: "the JVM refused (\(result)): \(text.prefix(200))"))
        }
        return .success(text)
    }

    /// connect(2) to the UNIX socket at `path`; a non-blocking connect to a listening UNIX socket
    /// completes at once or fails (EAGAIN: its backlog is full).
    private static func connect(_ fd: Int32, path: String) -> Bool {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
    }

    /// Writes all of `bytes`, waiting for room until the deadline.
    private static func write(_ fd: Int32, _ bytes: [UInt8], deadlineNs: UInt64) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count > 0 {
                sent += count
            } else if count < 0 && (errno == EINTR || errno == EAGAIN) {
                guard wait(fd, for: Int16(POLLOUT), deadlineNs: deadlineNs) else { return false }
            } else {
                return false
            }
        }
        return true
    }

    /// Reads until end of file, the deadline or `JVMAttach.maxReplyBytes`.
    private static func read(_ fd: Int32, deadlineNs: UInt64) -> [UInt8] {
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while reply.count < JVMAttach.maxReplyBytes {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                reply += buffer[0..<min(count, JVMAttach.maxReplyBytes - reply.count)]
            } else if count < 0 && (errno == EINTR || errno == EAGAIN) {
                guard wait(fd, for: Int16(POLLIN), deadlineNs: deadlineNs) else { break }
            } else {
                break
            }
        }
        return reply
    }

    /// Waits for `events` on `fd` until the deadline; false when it passed.
    private static func wait(_ fd: Int32, for events: Int16, deadlineNs: UInt64) -> Bool {
        let now = MonotonicClock.nowNs()
        guard now < deadlineNs else { return false }
        var entry = pollfd(fd: fd, events: events, revents: 0)
        let milliseconds = Int32(min((deadlineNs - now) / 1_000_000 + 1, 1_000))
        return poll(&entry, 1, milliseconds) >= 0
    }
}
