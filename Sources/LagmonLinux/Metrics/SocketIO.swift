import Glibc

/// Marks `fd` close-on-exec, so the target never inherits lagmon's sockets.
func closeOnExec(_ fd: Int32) {
    _ = fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC)
}

/// Socket calls shared by the metrics endpoint and the Pushgateway client.
enum SocketIO {
    /// Sends all of `bytes` on the non-blocking `fd` by `deadlineNs` (MonotonicClock); false
    /// when the peer went away or the deadline passed.
    static func sendAll(_ fd: Int32, _ bytes: [UInt8], deadlineNs: UInt64) -> Bool {
        var offset = 0
        while offset < bytes.count {
            guard waitUntilReady(fd, Int16(POLLOUT), deadlineNs: deadlineNs) else { return false }
            let sent = bytes.withUnsafeBytes { raw in
                send(fd, raw.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// Reads from the non-blocking `fd` until `complete` says the bytes so far are enough, the
    /// peer closes, `limit` bytes arrived, or `deadlineNs` passed (`timedOut` then).
    static func receive(_ fd: Int32, limit: Int, deadlineNs: UInt64, until complete: ([UInt8]) -> Bool)
        -> (bytes: [UInt8], timedOut: Bool)
    {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while received.count < limit && !complete(received) {
            guard waitUntilReady(fd, Int16(POLLIN), deadlineNs: deadlineNs) else { return (received, true) }
            let count = recv(fd, &chunk, min(chunk.count, limit - received.count), 0)
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard count > 0 else { break }
            received += chunk[0..<count]
        }
        return (received, false)
    }

    /// Waits until `fd` is ready for `events` or `deadlineNs` passes; false at the deadline.
    static func waitUntilReady(_ fd: Int32, _ events: Int16, deadlineNs: UInt64) -> Bool {
        while true {
            let nowNs = MonotonicClock.nowNs()
            guard nowNs < deadlineNs else { return false }
            var poller = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&poller, 1, Int32(clamping: (deadlineNs - nowNs) / 1_000_000 + 1))
            if ready > 0 { return true }
            if ready < 0 && errno != EINTR { return true }  // the call that follows says what is wrong
        }
    }

    /// Whether `bytes` hold a whole HTTP head (up to the blank line).
    static func hasHead(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 4 else { return false }
        return (3..<bytes.count).contains { index in
            bytes[index - 3] == 13 && bytes[index - 2] == 10 && bytes[index - 1] == 13 && bytes[index] == 10
        }
    }
}
