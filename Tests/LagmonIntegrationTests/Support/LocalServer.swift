import Foundation
import LagmonTestSupport

/// A real server from Debian's packages (prometheus, prometheus-pushgateway) started by a test
/// on a free loopback port, with its own temporary files; killed and reaped when released.
final class LocalServer {
    let pid: pid_t
    let port: UInt16
    let directory: String

    /// Starts `argv` (where `{port}` and `{dir}` are replaced by the port and a new temporary
    /// directory) and waits, at most 60 s, until `GET readyPath` answers 200.
    init(_ argv: [String], readyPath: String, files: [String: String] = [:]) throws {
        let port = try freeLoopbackPort()
        let directory = temporaryPath("server-\(UUID().uuidString)")
        self.port = port
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for (name, text) in files {
            let expanded = text.replacingOccurrences(of: "{dir}", with: directory)
            try expanded.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
        }
        let expanded = argv.map {
            $0.replacingOccurrences(of: "{port}", with: String(port)).replacingOccurrences(of: "{dir}", with: directory)
        }
        let logFD = open(directory + "/server.log", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        defer { close(logFD) }
        pid = try spawnWithCleanSignals(
            expanded, environment: ProcessInfo.processInfo.environment,
            stdio: (open("/dev/null", O_RDONLY), logFD, logFD))
        let ready = poll(seconds: 60) { (try? httpGet(port: self.port, path: readyPath))?.status == 200 }
        guard ready else {
            throw LocalServerError(description: "\(argv[0]) did not become ready: \(self.log(tail: 2000))")
        }
    }

    /// Debian's prometheus-pushgateway, in memory only: its package makes it load and save
    /// /var/lib/prometheus/pushgateway.data by default, so without this every test's gateway
    /// would hold what every earlier one on the machine pushed.
    static func pushgateway() throws -> LocalServer {
        try LocalServer(
            ["/usr/bin/prometheus-pushgateway", "--web.listen-address=127.0.0.1:{port}", "--persistence.file="],
            readyPath: "/-/ready")
    }

    deinit {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The end of the server's output, for failure messages.
    func log(tail: Int) -> String {
        let text = (try? String(contentsOfFile: directory + "/server.log", encoding: .utf8)) ?? ""
        return String(text.suffix(tail))
    }
}

struct LocalServerError: Error, CustomStringConvertible {
    var description: String
}

/// A port nobody listens on right now (bound to port 0, read back, released).
func freeLoopbackPort() throws -> UInt16 {
    let listener = try LoopbackListener()
    return listener.port
}

/// A socket listening on 127.0.0.1 on a port the kernel chose, closed when released.
final class LoopbackListener {
    let fd: Int32
    let port: UInt16

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 4) == 0 else { throw LocalServerError(description: "bind: \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(fd) }
}

/// One HTTP/1.1 GET on 127.0.0.1 (the tests' own client, independent of lagmon's).
func httpGet(port: UInt16, path: String) throws -> (status: Int, body: String) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard connected == 0 else { throw LocalServerError(description: "connect to port \(port): errno \(errno)") }
    let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
    _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    var received = Data()
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = recv(fd, &buffer, buffer.count, 0)
        guard count > 0 else { break }
        received.append(contentsOf: buffer[0..<count])
    }
    let bytes = [UInt8](received)
    guard let headEnd = find([13, 10, 13, 10], in: bytes, from: 0) else {
        throw LocalServerError(description: "not HTTP: \(String(decoding: bytes.prefix(200), as: UTF8.self))")
    }
    let head = String(decoding: bytes[..<headEnd], as: UTF8.self)
    guard let status = Int(head.split(separator: " ").dropFirst().first ?? "") else {
        throw LocalServerError(description: "not HTTP: \(head.prefix(200))")
    }
    var body = Array(bytes[(headEnd + 4)...])
    if head.lowercased().contains("transfer-encoding: chunked") { body = dechunk(body) }
    return (status, String(decoding: body, as: UTF8.self))
}

/// Where `needle` first occurs in `bytes` at or after `from`.
private func find(_ needle: [UInt8], in bytes: [UInt8], from: Int) -> Int? {
    guard bytes.count >= needle.count, from <= bytes.count - needle.count else { return nil }
    return (from...(bytes.count - needle.count)).first { Array(bytes[$0..<($0 + needle.count)]) == needle }
}

/// The body of a chunked transfer (Prometheus's API and the Pushgateway answer so).
private func dechunk(_ bytes: [UInt8]) -> [UInt8] {
    var body: [UInt8] = []
    var offset = 0
    while let lineEnd = find([13, 10], in: bytes, from: offset),
        let size = Int(String(decoding: bytes[offset..<lineEnd], as: UTF8.self), radix: 16), size > 0,
        lineEnd + 2 + size <= bytes.count
    {
        body += bytes[(lineEnd + 2)..<(lineEnd + 2 + size)]
        offset = lineEnd + 2 + size + 2
    }
    return body
}
