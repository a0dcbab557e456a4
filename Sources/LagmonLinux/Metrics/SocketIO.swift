import Glibc

/// Marks `fd` close-on-exec, so the target never inherits lagmon's sockets.
func closeOnExec(_ fd: Int32) {
    _ = fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC)
}

/// Socket calls shared by the metrics endpoint and the Pushgateway client.
enum SocketIO {
    /// Sends all of `bytes`; false when the peer went away or the send timed out.
    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                send(fd, raw.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// Reads until `complete` says the bytes so far are enough, the peer closes, `limit` bytes
    /// arrived, or a receive times out.
    static func receive(_ fd: Int32, limit: Int, until complete: ([UInt8]) -> Bool) -> [UInt8] {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while received.count < limit && !complete(received) {
            let count = recv(fd, &chunk, min(chunk.count, limit - received.count), 0)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            received += chunk[0..<count]
        }
        return received
    }

    /// Bounds every send and receive on `fd` to `seconds`.
    static func setTimeouts(_ fd: Int32, seconds: Int) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Whether `bytes` hold a whole HTTP head (up to the blank line).
    static func hasHead(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 4 else { return false }
        return (3..<bytes.count).contains { index in
            bytes[index - 3] == 13 && bytes[index - 2] == 10 && bytes[index - 1] == 13 && bytes[index] == 10
        }
    }
}
