// A SwiftNIO HTTP/1.1 server on two event loops whose handler blocks its event loop on purpose.
// It prints `listening port=<port>` once bound (tests read it, never sleep); `GET /slow` blocks
// the loop in nioHandlerBlocksEventLoop() for 300 ms and prints `blocked ms=<measured>`; any
// other path answers at once and closes the connection, except `GET /keep`, which answers and
// keeps it open for the next request (HTTP/1.1 keep-alive, as wrk's default). `GET /quit`
// answers, then closes the server and exits 0.
import Glibc
import NIOCore
import NIOHTTP1
import NIOPosix

/// Monotonic time in nanoseconds.
func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// Blocks the calling event loop: the bug every NIO user fears.
@inline(never)
func nioHandlerBlocksEventLoop(milliseconds: UInt32) -> UInt64 {
    let start = monotonicNanoseconds()
    usleep(milliseconds * 1000)
    return monotonicNanoseconds() - start
}

/// Writes one line to stdout at once (unbuffered: tests read it while the program runs).
func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

final class FixtureHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart
    let quit: @Sendable () -> Void

    init(quit: @escaping @Sendable () -> Void) { self.quit = quit }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let head) = unwrapInboundIn(data) else { return }
        var body = "ok\n"
        if head.uri == "/slow" {
            let blocked = nioHandlerBlocksEventLoop(milliseconds: 300)
            say("blocked ms=\(Double(blocked) / 1e6)")
            body = "slow\n"
        }
        let keepAlive = head.uri == "/keep" && head.isKeepAlive
        var headers = HTTPHeaders()
        headers.add(name: "content-length", value: String(body.utf8.count))
        if !keepAlive { headers.add(name: "connection", value: "close") }
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .ok, headers: headers))), promise: nil
        )
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: body)))), promise: nil)
        let quitting = head.uri == "/quit"
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { [quit] _ in
            if !keepAlive { context.close(promise: nil) }
            if quitting { quit() }
        }
    }
}

let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
let quitPromise = group.next().makePromise(of: Void.self)
let bootstrap = ServerBootstrap(group: group)
    .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
    .childChannelInitializer { channel in
        channel.pipeline.configureHTTPServerPipeline().flatMap {
            channel.pipeline.addHandler(FixtureHandler(quit: { quitPromise.succeed(()) }))
        }
    }
let server = try bootstrap.bind(host: "127.0.0.1", port: 0).wait()
say("listening port=\(server.localAddress?.port ?? 0)")
try quitPromise.futureResult.wait()
try server.close().wait()
try group.syncShutdownGracefully()
say("done")
