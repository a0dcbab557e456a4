import Glibc
import LagmonCore

/// Pushes metrics to a Pushgateway with one HTTP/1.1 `PUT` (replacing the group), bounded in
/// time: connecting, sending and reading the answer each give up after `timeoutSeconds`.
public enum PushClient {
    /// PUTs `body` (Prometheus text) to `path` on `gateway`; nil when the gateway accepted it,
    /// otherwise why not, for a warning.
    public static func put(_ body: [UInt8], to gateway: PushGateway, path: String, timeoutSeconds: Int = 5) -> String? {
        let addresses: [SocketAddress]
        switch SocketAddress.resolve(host: gateway.host, port: gateway.port) {
        case .success(let list): addresses = list
        case .failure(let failure): return failure.reason
        }
        var lastError = "the host has no address"
        for address in addresses {
            switch connect(to: address, timeoutSeconds: timeoutSeconds) {
            case .failure(let failure): lastError = failure.reason
            case .success(let fd):
                defer { close(fd) }
                return exchange(fd, request(body, gateway: gateway, path: path))
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
    private static func exchange(_ fd: Int32, _ request: [UInt8]) -> String? {
        guard SocketIO.sendAll(fd, request) else { return "sending failed: \(String(cString: strerror(errno)))" }
        let answer = SocketIO.receive(fd, limit: 4096) { _ in false }
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

    /// A connected, blocking socket with send and receive timeouts.
    private static func connect(to address: SocketAddress, timeoutSeconds: Int) -> Result<Int32, SocketFailure> {
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
        var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        var ready: Int32
        repeat { ready = poll(&poller, 1, Int32(timeoutSeconds * 1000)) } while ready < 0 && errno == EINTR
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
        guard ready > 0, error == 0 else {
            close(fd)
            return .failure(
                SocketFailure(ready == 0 ? "no connection within \(timeoutSeconds)s" : String(cString: strerror(error)))
            )
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        SocketIO.setTimeouts(fd, seconds: timeoutSeconds)
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
