import CLagmonLinux
import Glibc
import LagmonCore

/// The `/metrics` endpoint: a listening socket bound before the target starts (so a port in
/// use is a usage error, not a run without metrics), served by one thread of lagmon's.
///
/// A minimal HTTP/1.1 responder, `Connection: close`: a request head of at most 8 KiB read
/// within 2 s, `GET`/`HEAD /metrics` answered with the exposition (taken within 2 s), `/` with a
/// link to it, anything else 404 or 405. Every connection is served at once by one poll loop,
/// none blocks another: an idle or slow client costs a slot until its 2 s are up, and at
/// `maxConnections` the oldest client still silent is closed for the new one (as node_exporter
/// bounds its connections), so a scrape is answered however many idle connections are open.
/// (Served one at a time, 8 idle connections held every scrape up for 16 s.)
public final class MetricsEndpoint: Sendable {
    /// Why the address cannot be served.
    public struct BindError: Error, CustomStringConvertible {
        public var address: ListenAddress
        public var reason: String
        public var description: String {
            "cannot listen for metrics on \(address.description): \(reason); choose another --metrics-listen address or free the port"
        }
    }

    /// The address asked for, and the port actually bound (the kernel's choice for port 0).
    public let address: ListenAddress
    public let boundPort: UInt16
    private let listener: Int32
    private let wake: (read: Int32, write: Int32)
    private let thread = WorkerThread()
    /// The most clients served at once.
    static let maxConnections = 64

    /// Binds and listens on `address`; throws `BindError` (port in use, address not local, …).
    public init(_ address: ListenAddress) throws(BindError) {
        self.address = address
        let resolved: [SocketAddress]
        switch SocketAddress.resolve(host: address.host, port: address.port) {
        case .success(let list) where !list.isEmpty: resolved = list
        case .success: throw BindError(address: address, reason: "the host has no address")
        case .failure(let failure): throw BindError(address: address, reason: failure.reason)
        }
        let first = resolved[0]
        let fd = socket(first.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw BindError(address: address, reason: String(cString: strerror(errno))) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard first.withSockaddr({ bind(fd, $0, $1) }) == 0, listen(fd, 128) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw BindError(address: address, reason: reason)
        }
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else {
            close(fd)
            throw BindError(address: address, reason: String(cString: strerror(errno)))
        }
        pipeEnds.forEach(closeOnExec)
        listener = fd
        wake = (pipeEnds[0], pipeEnds[1])
        boundPort = Self.localPort(fd) ?? address.port
    }

    deinit {
        stop()
        close(listener)
        close(wake.read)
        close(wake.write)
    }

    /// Starts answering scrapes with `exposition()`, called once per `/metrics` request on the
    /// endpoint's thread.
    public func serve(_ exposition: @escaping @Sendable () -> [UInt8]) throws {
        guard !thread.isStarted else { return }
        try thread.start(name: "lagmon-metrics") { [self] in run(exposition) }
    }

    /// Stops serving (the socket stays bound until the endpoint is released).
    public func stop() {
        guard thread.isStarted else { return }
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
        thread.join()
    }

    private func run(_ exposition: @Sendable () -> [UInt8]) {
        _ = fcntl(listener, F_SETFL, fcntl(listener, F_GETFL) | O_NONBLOCK)
        var connections: [MetricsConnection] = []
        defer { connections.forEach { close($0.fd) } }
        while true {
            var fds =
                [
                    pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
                ]
                + connections.map { pollfd(fd: $0.fd, events: $0.events, revents: 0) }
            let nowNs = MonotonicClock.nowNs()
            let nearest = connections.map(\.deadlineNs).min()
            let timeoutMs = nearest.map { Int32(clamping: ($0 > nowNs ? $0 - nowNs : 0) / 1_000_000 + 1) } ?? -1
            let ready = poll(&fds, nfds_t(fds.count), timeoutMs)
            if ready < 0 && errno != EINTR { return }
            if fds[1].revents != 0 { return }
            let afterNs = MonotonicClock.nowNs()
            connections = serve(connections, fds[2...].map(\.revents), nowNs: afterNs, exposition)
            if fds[0].revents != 0 { accept(into: &connections, nowNs: afterNs) }
        }
    }

    /// The connections still open after their poll results: each reads or writes what is ready;
    /// one done, failed or past its deadline is closed.
    private func serve(
        _ connections: [MetricsConnection], _ events: [Int16], nowNs: UInt64, _ exposition: () -> [UInt8]
    ) -> [MetricsConnection] {
        var open: [MetricsConnection] = []
        for (index, var connection) in connections.enumerated() {
            var alive = connection.deadlineNs > nowNs
            if alive && events[index] != 0 {
                alive =
                    connection.isIdle
                    ? connection.read(nowNs: nowNs) { answer($0, exposition) } : connection.write()
                // A head just completed: send at once (the socket usually takes it all).
                if alive && !connection.isIdle && events[index] & Int16(POLLIN) != 0 { alive = connection.write() }
            }
            if alive { open.append(connection) } else { close(connection.fd) }
        }
        return open
    }

    /// Accepts every waiting client; at `maxConnections` the oldest one still silent makes room
    /// (`MetricsConnection.isSilent`: a client that sent any of its request, or is being
    /// answered, is never cut).
    private func accept(into connections: inout [MetricsConnection], nowNs: UInt64) {
        while true {
            let client = Glibc.accept(listener, nil, nil)
            guard client >= 0 else { return }
            closeOnExec(client)
            _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
            if connections.count >= Self.maxConnections {
                let oldestSilent = connections.indices.filter { connections[$0].isSilent }
                    .min { connections[$0].acceptedNs < connections[$1].acceptedNs }
                guard let oldestSilent else {
                    close(client)
                    continue
                }
                close(connections.remove(at: oldestSilent).fd)
            }
            connections.append(MetricsConnection(fd: client, nowNs: nowNs))
        }
    }

    /// The answer to the request `head`.
    private func answer(_ head: [UInt8], _ exposition: () -> [UInt8]) -> [UInt8] {
        let request = HTTPRequestLine.parse(head)
        let response: HTTPResponse
        switch request {
        case .some(let line) where line.path == "/metrics" && (line.method == "GET" || line.method == "HEAD"):
            response = HTTPResponse(
                status: "200 OK", contentType: "text/plain; version=0.0.4; charset=utf-8", body: exposition(),
                headOnly: line.method == "HEAD")
        case .some(let line) where line.path == "/":
            response = HTTPResponse(
                status: "200 OK", contentType: "text/html; charset=utf-8",
                body: Array("<html><body><a href=\"/metrics\">lagmon metrics</a></body></html>\n".utf8),
                headOnly: line.method == "HEAD")
        case .some(let line) where line.method != "GET" && line.method != "HEAD":
            response = HTTPResponse(
                status: "405 Method Not Allowed", contentType: "text/plain", body: Array("GET only\n".utf8))
        case .some:
            response = HTTPResponse(
                status: "404 Not Found", contentType: "text/plain", body: Array("see /metrics\n".utf8))
        case .none:
            response = HTTPResponse(
                status: "400 Bad Request", contentType: "text/plain", body: Array("bad request\n".utf8))
        }
        return response.bytes
    }

    private static func localPort(_ fd: Int32) -> UInt16? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard status == 0 else { return nil }
        return withUnsafeBytes(of: storage) { raw in
            // sin_port and sin6_port sit at the same offset, in network order.
            UInt16(bigEndian: raw.load(fromByteOffset: 2, as: UInt16.self))
        }
    }
}
