import Glibc

/// One client of the metrics endpoint: its request head read, then its answer sent, both
/// without blocking and each within `MetricsConnection.phaseNs` (`MetricsEndpoint`).
struct MetricsConnection {
    /// How long a client may take to send its request head, and then to take the answer.
    static let phaseNs: UInt64 = 2_000_000_000
    /// The longest request head read.
    static let headLimit = 8192

    let fd: Int32
    /// When the current phase (reading the head, sending the answer) must be over.
    private(set) var deadlineNs: UInt64
    /// When the connection was accepted: the oldest idle one is closed first at the limit.
    let acceptedNs: UInt64
    private var head: [UInt8] = []
    /// The answer, once the head is in, and how much of it has been sent.
    private var answer: [UInt8]?
    private var sent = 0

    init(fd: Int32, nowNs: UInt64) {
        self.fd = fd
        acceptedNs = nowNs
        deadlineNs = nowNs + Self.phaseNs
    }

    /// Whether it still waits for its request (not yet answered).
    var isIdle: Bool { answer == nil }

    /// Whether the client has sent nothing at all: no byte of a request read, none waiting on
    /// the socket. Only such a client is closed to make room at the limit: a scrape whose request
    /// came is answered, even when many connections arrive after it before its request is read
    /// (a loaded test run's scrape, accepted in one batch with idle connections whose handshakes
    /// had waited for a full backlog, was closed unread: "not HTTP").
    var isSilent: Bool {
        guard answer == nil, head.isEmpty else { return false }
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT)) <= 0
    }

    /// The events to poll for.
    var events: Int16 { Int16(answer == nil ? POLLIN : POLLOUT) }

    /// Reads what the client sent; once the head is whole, `respond` turns it into the answer.
    /// Returns false when the connection is over (closed by the peer, an error).
    mutating func read(nowNs: UInt64, respond: ([UInt8]) -> [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &chunk, min(chunk.count, Self.headLimit - head.count), Int32(MSG_DONTWAIT))
        if count < 0 { return errno == EAGAIN || errno == EINTR }
        guard count > 0 else { return false }
        head += chunk[0..<count]
        if SocketIO.hasHead(head) || head.count >= Self.headLimit {
            answer = respond(head)
            deadlineNs = nowNs + Self.phaseNs
        }
        return true
    }

    /// Sends what the socket takes of the answer. Returns false when the connection is over
    /// (all sent, or an error).
    mutating func write() -> Bool {
        guard let answer else { return true }
        let count = answer.withUnsafeBytes { raw in
            send(fd, raw.baseAddress! + sent, answer.count - sent, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
        }
        if count < 0 { return errno == EAGAIN || errno == EINTR }
        sent += count
        return sent < answer.count
    }
}
