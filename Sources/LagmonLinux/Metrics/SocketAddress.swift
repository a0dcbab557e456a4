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
