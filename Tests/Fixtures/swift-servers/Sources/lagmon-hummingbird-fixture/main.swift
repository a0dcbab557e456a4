// A Hummingbird 2 HTTP server (its default: the NIO singleton event loop group, one loop per
// CPU) whose route handler blocks on purpose. It prints `listening port=<port>` once bound (tests
// read it, never sleep); `GET /slow` blocks in hummingbirdRouteBlocks() for 300 ms and prints
// `blocked ms=<measured>`; `GET /fast` answers at once. `GET /quit` answers, then asks the server
// to shut down gracefully (SIGTERM to itself, which Hummingbird's service group handles) and the
// program prints `done` and exits 0.
//
// Hummingbird 2 runs route handlers in Swift tasks, on the cooperative thread pool (not on the
// NIO event loop that read the request): a blocking handler blocks a cooperative thread.
import Glibc
import Hummingbird

/// Monotonic time in nanoseconds.
func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// Writes one line to stdout at once (unbuffered: tests read it while the program runs).
func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

/// Blocks the thread running the route handler: a blocking call in a request handler.
@inline(never)
func hummingbirdRouteBlocks(milliseconds: UInt32) -> UInt64 {
    let start = monotonicNanoseconds()
    usleep(milliseconds * 1000)
    return monotonicNanoseconds() - start
}

let router = Router()
router.get("fast") { _, _ in "ok\n" }
router.get("slow") { _, _ -> String in
    let blocked = hummingbirdRouteBlocks(milliseconds: 300)
    say("blocked ms=\(Double(blocked) / 1e6)")
    return "slow\n"
}
router.get("quit") { _, _ -> String in
    // Graceful: the service group stops accepting, finishes this response, then run() returns.
    kill(getpid(), SIGTERM)
    return "ok\n"
}
let app = Application(
    router: router,
    configuration: .init(address: .hostname("127.0.0.1", port: 0)),
    onServerRunning: { channel in say("listening port=\(channel.localAddress?.port ?? 0)") }
)
try await app.runService()
say("done")
