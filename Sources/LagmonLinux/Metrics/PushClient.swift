import Glibc
import LagmonCore

/// Pushes metrics to a Pushgateway with one HTTP/1.1 `PUT` (replacing the group), bounded in
/// time: the whole exchange — resolving aside, connecting, sending, reading the answer's head —
/// ends within `timeoutSeconds`, however slowly the gateway trickles its bytes. Only the status
/// line is needed: a 2xx is taken as soon as the head is in, the body never waited for.
public enum PushClient {
    /// PUTs `body` (Prometheus text) to `path` on `gateway`; nil when the gateway accepted it,
    /// otherwise why not, for a warning.
    public static func put(_ body: [UInt8], to gateway: PushGateway, path: String, timeoutSeconds: Int = 5) -> String? {
        let addresses: [SocketAddress]
        switch SocketAddress.resolve(host: gateway.host, port: gateway.port) {
        case .success(let list): addresses = list
        case .failure(let failure): return failure.reason
        }
        let deadlineNs = MonotonicClock.nowNs() + UInt64(timeoutSeconds) * 1_000_000_000
        var lastError = "the host has no address"
        for address in addresses {
            switch connect(to: address, deadlineNs: deadlineNs, timeoutSeconds: timeoutSeconds) {
            case .failure(let failure): lastError = failure.reason
            case .success(let fd):
                defer { close(fd) }
                return exchange(fd, request(body, gateway: gateway, path: path), deadlineNs, timeoutSeconds)
            }
        }
        return lastError
    }

    private static func request(_ body: [UInt8], gateway: PushGateway, path: String) -> [UInt8] {
        let head =
            "PUT \(path) HTTP/1.1\r\nHost: \(gateway.authority)\r\nUser-Agent: lagmon/\(LagmonVersion.current)\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + body
    }

    /// Sends the request and reads the status; nil on 2xx.
    private static func exchange(_ fd: Int32, _ request: [UInt8], _ deadlineNs: UInt64, _ timeoutSeconds: Int)
        -> String?
    {
        guard SocketIO.sendAll(fd, request, deadlineNs: deadlineNs) else {
            return MonotonicClock.nowNs() >= deadlineNs
                ? "the gateway did not take the request within \(timeoutSeconds)s; cut off"
                : "sending failed: \(String(cString: strerror(errno)))"
        }
        let (head, timedOut) = SocketIO.receive(fd, limit: 4096, deadlineNs: deadlineNs, until: SocketIO.hasHead)
        if timedOut { return "the gateway's answer did not come within \(timeoutSeconds)s; cut off" }
        // Some of the body, for the warning of a refusal (within what is left of the deadline).
        let answer =
            head.count >= 4096 || !SocketIO.hasHead(head) || Self.isSuccess(head)
            ? head
            : head + SocketIO.receive(fd, limit: 4096 - head.count, deadlineNs: deadlineNs) { $0.count >= 200 }.bytes
        let statusLine = String(decoding: answer.prefix { $0 != 13 && $0 != 10 }, as: UTF8.self)
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let code = Int(parts[1]) else {
            return answer.isEmpty ? "no answer" : "not an HTTP answer"
        }
        guard !(200..<300).contains(code) else { return nil }
        let bodyStart = answer.indices.first { index in
            index >= 3 && answer[index - 3] == 13 && answer[index - 2] == 10 && answer[index - 1] == 13
                && answer[index] == 10
        }
        let detail = bodyStart.map { String(decoding: answer[($0 + 1)...].prefix(200), as: UTF8.self) } ?? ""
        return "HTTP \(statusLine.dropFirst(9))"
            + (detail.isEmpty ? "" : ": " + QuotedText.printable(detail.trimmingTrailingNewlines, limit: 200))
    }

    /// Whether the answer starting with `head` has a 2xx status.
    private static func isSuccess(_ head: [UInt8]) -> Bool {
        let parts = head.prefix { $0 != 13 && $0 != 10 }.split(separator: UInt8(ascii: " "), maxSplits: 2)
        return parts.count >= 2 && parts[1].count == 3 && parts[1].first == UInt8(ascii: "2")
    }

    /// A connected, non-blocking socket, connected by `deadlineNs`.
    private static func connect(to address: SocketAddress, deadlineNs: UInt64, timeoutSeconds: Int)
        -> Result<Int32, SocketFailure>
    {
        let fd = socket(
            address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue),
            0)
        guard fd >= 0 else { return .failure(.errnoText) }
        let started = address.withSockaddr { Glibc.connect(fd, $0, $1) }
        if started != 0 && errno != EINPROGRESS {
            let failure = SocketFailure.errnoText
            close(fd)
            return .failure(failure)
        }
        let ready = SocketIO.waitUntilReady(fd, Int16(POLLOUT), deadlineNs: deadlineNs)
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
        guard ready, error == 0 else {
            close(fd)
            return .failure(
                SocketFailure(!ready ? "no connection within \(timeoutSeconds)s" : String(cString: strerror(error))))
        }
        return .success(fd)
    }
}

extension String {
    fileprivate var trimmingTrailingNewlines: String {
        var text = self
        while text.last?.isNewline == true { text.removeLast() }
        return text
    }
}

extension PushClient {
    /// This machine's host name (the Pushgateway `instance`), or `localhost` when unknown.
    public static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "localhost" : name
    }
}
