import Glibc

/// A resolved TCP address (the bytes of a `sockaddr_in` or `sockaddr_in6`), from getaddrinfo.
struct SocketAddress {
    var family: Int32
    var storage: sockaddr_storage
    var length: socklen_t

    /// The addresses of `host` and `port`, numeric or by name; the error is getaddrinfo's text.
    static func resolve(host: String, port: UInt16) -> Result<[SocketAddress], SocketFailure> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0 else { return .failure(SocketFailure(String(cString: gai_strerror(status)))) }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var next = list
        while let entry = next?.pointee {
            var storage = sockaddr_storage()
            let length = min(Int(entry.ai_addrlen), MemoryLayout<sockaddr_storage>.size)
            withUnsafeMutableBytes(of: &storage) { target in
                target.copyMemory(from: UnsafeRawBufferPointer(start: entry.ai_addr, count: length))
            }
            addresses.append(SocketAddress(family: entry.ai_family, storage: storage, length: socklen_t(length)))
            next = entry.ai_next
        }
        return .success(addresses)
    }

    /// Calls `body` with the address as a `sockaddr` pointer.
    func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        withUnsafeBytes(of: storage) { raw in
            body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), length)
        }
    }
}

/// Why a socket operation failed, as text for a message.
struct SocketFailure: Error {
    var reason: String
    init(_ reason: String) { self.reason = reason }
    /// The text of `errno` now.
    static var errnoText: SocketFailure { SocketFailure(String(cString: strerror(errno))) }
}

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
