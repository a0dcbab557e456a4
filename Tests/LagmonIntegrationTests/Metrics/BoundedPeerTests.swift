import Foundation
import LagmonCore
import Testing

/// Every network peer is bounded: a Pushgateway that trickles its answer holds lagmon's exit for
/// at most the push deadline (with a warning when it cuts), and the metrics endpoint answers a
/// scrape while 200 idle connections are open.
@Suite(.serialized)
struct BoundedPeerTests {
    /// A gateway that sends its status line a byte a second: cut at the 5 s deadline, said.
    @Test func aGatewayTricklingItsAnswerIsCutAtTheDeadline() throws {
        let gateway = try TricklingPeer(mode: "head")
        let started = Date()
        let lagmon = try LagmonProcess(["run", "--push-gateway", "http://127.0.0.1:\(gateway.port)", "--", "true"])
        // Before: the 38-byte head took 38 s, a byte at a time.
        let result = try #require(try lagmon.finish(withinSeconds: 30), "lagmon still ran after 30 s")
        #expect(Date().timeIntervalSince(started) < 20)
        #expect(result.status == 0)
        #expect(result.stderr.contains("did not come within 5s; cut off"), "\(result.stderr)")
        #expect(result.report != nil)
    }

    /// A gateway that answers 200 at once and then trickles a 1 MB body: the push succeeded,
    /// lagmon does not wait for the body (before, it read on a byte a second for as long as the
    /// gateway liked).
    @Test func aGatewayTricklingItsBodyIsNotWaitedFor() throws {
        let gateway = try TricklingPeer(mode: "body")
        let started = Date()
        let lagmon = try LagmonProcess(["run", "--push-gateway", "http://127.0.0.1:\(gateway.port)", "--", "true"])
        let result = try #require(try lagmon.finish(withinSeconds: 30), "lagmon still ran after 30 s")
        #expect(Date().timeIntervalSince(started) < 20)
        #expect(result.status == 0)
        #expect(!result.stderr.contains("push"), "\(result.stderr)")
    }

    /// 200 idle connections, then a real scrape: answered well within 10 s (before, the endpoint
    /// served one connection at a time, 2 s each: scrapes timed out).
    @Test func aScrapeIsAnsweredWhileTwoHundredIdleConnectionsAreOpen() throws {
        let port = try freeLoopbackPort()
        let lagmon = try LagmonProcess([
            "run", "--metrics-listen", "127.0.0.1:\(port)", "--", "/bin/sh", "-c", "echo ready; read line",
        ])
        defer { _ = try? lagmon.finish(withinSeconds: 30) }
        #expect(lagmon.waitForLine(containing: "ready", withinSeconds: 60) != nil)
        var idle: [Int32] = []
        defer { idle.forEach { close($0) } }
        for _ in 0..<200 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            idle.append(fd)
        }
        let started = Date()
        let scrape = try httpGet(port: port, path: "/metrics")
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(scrape.status == 200)
        #expect(scrape.body.contains("lagmon_"))
        lagmon.send(stdin: "done\n")
        let result = try #require(try lagmon.finish(withinSeconds: 30))
        #expect(result.status == 0)
    }
}

/// A slow HTTP peer (python3): for each connection it reads the request head, then sends, a byte
/// a second, either its whole answer (`head`: a 200 with no body) or, after a 200 head with
/// `Content-Length: 1000000`, its body (`body`). Killed when released.
final class TricklingPeer {
    let port: UInt16
    private let process = Process()

    init(mode: String) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", Self.script, mode]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        guard let port = UInt16(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw LocalServerError(description: "the trickling peer said \(line)")
        }
        self.port = port
    }

    deinit {
        // SIGKILL: the peer inherits the test runner's mask, which blocks SIGTERM.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    static let script = """
        import socket, sys, threading, time
        mode = sys.argv[1]
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        print(listener.getsockname()[1], flush=True)
        def serve(client):
            try:
                data = b""
                while b"\\r\\n\\r\\n" not in data:
                    chunk = client.recv(65536)
                    if not chunk:
                        return
                    data += chunk
                if mode == "body":
                    client.sendall(b"HTTP/1.1 200 OK\\r\\nContent-Length: 1000000\\r\\n\\r\\n")
                    answer = b"x" * 1000000
                else:
                    answer = b"HTTP/1.1 200 OK\\r\\nContent-Length: 0\\r\\n\\r\\n"
                for index in range(len(answer)):
                    client.sendall(answer[index:index + 1])
                    time.sleep(1)
            except OSError:
                pass
        while True:
            client, _ = listener.accept()
            threading.Thread(target=serve, args=(client,), daemon=True).start()
        """
}
