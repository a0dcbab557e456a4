import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// Swift concurrency and SwiftNIO programs under plain `lagmon run` (default `--loops auto`):
/// the fixtures (Tests/Fixtures/swift-servers) log what they measured; the report must agree.
@Suite(.serialized)
struct SwiftConcurrencyTests {
    /// The measured value of `key=` on the fixture's line starting with `prefix`.
    static func logged(_ stdout: String, _ prefix: String, _ key: String = "ms") -> Double? {
        let line = stdout.split(separator: "\n").first { $0.hasPrefix(prefix + " ") }
        let field = line?.split(separator: " ").first { $0.hasPrefix(key + "=") }
        return field.flatMap { Double($0.dropFirst(key.count + 1)) }
    }

    /// `measuredNs` holds the `loggedMs` the fixture timed (`StallDuration.holds`).
    static func expectHoldsLogged(_ measuredNs: UInt64, _ loggedMs: Double, _ what: String) {
        #expect(
            StallDuration.holds(measuredNs: measuredNs, injectedNs: UInt64(loggedMs * 1e6)),
            "\(what): lagmon \(Double(measuredNs) / 1e6) ms, fixture \(loggedMs) ms")
    }

    @Test func mainActorPoolAndStarvationAreFoundWithDefaultFlags() throws {
        // Ahead of the machine's other work (nice -15, as StackTests.ahead): at load 12-22 the
        // main actor's 300 ms spin got no sample, a blocked pool job's start was 14 ms late, and
        // the starved pool's period split in two.
        let result = try LagmonProcess.run(["run", "--", Binaries.concurrencyFixture], wrapper: StackTests.ahead)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try #require(result.report)
        #expect(report.config.loops == "auto")
        #expect(!report.diagnostics.contains { $0.code == "no-observer" }, "\(report.diagnostics)")

        let actorMs = try #require(Self.logged(result.stdout, "main-actor"), "\(result.stdout)")
        let actorStall = try #require(report.stalls.first { $0.observer == LoopObserver.swiftMainActor })
        #expect(report.loops.contains { $0.observer == LoopObserver.swiftMainActor && $0.thread.name == "main-actor" })
        Self.expectHoldsLogged(actorStall.durationNs, actorMs, "main-actor stall")
        let actorCulprit = try #require(actorStall.culprit, "\(actorStall.stacks)")
        #expect(actorCulprit.symbol == "mainActorHandlesRequest()", "\(actorCulprit)")
        #expect(actorCulprit.isAsync == true)
        #expect(actorStall.diagnosis.text.hasPrefix("held the main actor: "), "\(actorStall.diagnosis.text)")

        let blockedMs = try #require(Self.logged(result.stdout, "pool-blocked"))
        let poolStall = try #require(
            report.stalls.first {
                $0.observer == LoopObserver.swiftPool && $0.culprit?.symbol == "poolJobBlocksThread()"
            },
            "\(report.stalls.map { ($0.observer, $0.culprit?.symbol, $0.durationNs) })")
        Self.expectHoldsLogged(poolStall.durationNs, blockedMs, "blocked pool thread")
        #expect(poolStall.diagnosis.text.hasPrefix("blocked a cooperative thread: "), "\(poolStall.diagnosis.text)")
        #expect(poolStall.diagnosis.kind == .sleep)

        let starvedMs = try #require(Self.logged(result.stdout, "starved"))
        let threads = try #require(Self.logged(result.stdout, "starved", "threads"))
        let pool = try #require(report.swiftPool)
        #expect(pool.width == Int(threads), "\(pool)")
        #expect(pool.maxBlockedThreads == Int(threads), "\(pool)")
        #expect(pool.starvations.count == 1, "\(pool)")
        let starvation = try #require(pool.starvations.first)
        Self.expectHoldsLogged(starvation.durationNs, starvedMs, "starvation")
        let starving = report.stalls.filter { $0.culprit?.symbol == "starvesCooperativePool(count:spans:)" }
        #expect(starving.count == Int(threads), "\(report.stalls.map { $0.culprit?.symbol })")
        let diagnostic = try #require(report.diagnostics.first { $0.code == "pool-starved" })
        #expect(diagnostic.message.contains("all \(Int(threads)) of its threads were blocked at once"), "\(diagnostic)")
    }

    /// Only the innermost async function of a chain of awaits is on the blocked thread's stack;
    /// the functions that awaited it follow it as logical frames, from its async context chain.
    @Test func aStalledAsyncFunctionsAwaitingCallersFollowItInTheStack() throws {
        let html = temporaryPath("nested.html")
        let result = try LagmonProcess.run(
            ["run", "--html", html, "--", Binaries.concurrencyFixture, "nested"], wrapper: StackTests.ahead)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try #require(result.report)
        let blockedMs = try #require(Self.logged(result.stdout, "nested"), "\(result.stdout)")
        let stall = try #require(
            report.stalls.first { $0.culprit?.symbol == "innerBlocksPoolThread()" },
            "\(report.stalls.map { ($0.observer, $0.culprit?.symbol, $0.durationNs) })")
        #expect(stall.observer == LoopObserver.swiftPool)
        Self.expectHoldsLogged(stall.durationNs, blockedMs, "blocked pool thread")
        let top = try #require(stall.stacks.first)
        // Innermost first: the blocked function, then who awaited it, then who awaited that.
        let frames = Array(top.frames.reversed())
        let inner = try #require(frames.firstIndex { $0.symbol == "innerBlocksPoolThread()" }, "\(frames)")
        #expect(frames[inner].isAsyncCaller == nil, "the blocked function is a physical frame")
        let callers = frames[(inner + 1)...].prefix(2)
        #expect(callers.map(\.symbol) == ["middleAwaitsInner()", "outerAwaitsMiddle()"], "\(frames)")
        #expect(callers.allSatisfy { $0.isAsyncCaller == true && $0.isAsync == true }, "\(frames)")
        // The text summary marks them too.
        let marked = result.lagmonLines.filter { $0.contains("[async]") }
        #expect(marked.contains { $0.contains("middleAwaitsInner()") }, "\(result.lagmonLines)")
        #expect(marked.contains { $0.contains("outerAwaitsMiddle()") }, "\(result.lagmonLines)")
        // And the HTML page's flame graphs.
        let page = String(decoding: try Data(contentsOf: URL(fileURLWithPath: html)), as: UTF8.self)
        #expect(page.contains("middleAwaitsInner() [async]") && page.contains("outerAwaitsMiddle() [async]"))

        // The main actor ran one job after the await, and that job called exit() (an async main
        // ends so): it never ended, yet it ran, so it is an iteration like every busy period.
        let actor = try #require(report.loops.first { $0.observer == LoopObserver.swiftMainActor })
        #expect(actor.iterations >= 1 && actor.iterations == actor.latency.count, "\(actor)")
        let line = result.lagmonLines.first { $0.contains("swift-main-actor loop") }
        #expect(line?.contains(": \(actor.iterations) iterations,") == true, "\(result.lagmonLines)")
    }

    @Test func aBlockedNIOEventLoopIsFoundWithDefaultFlags() throws {
        let lagmon = try LagmonProcess(["run", "--", Binaries.nioFixture])
        let listening = try #require(lagmon.waitForLine(containing: "listening port="))
        let port = try #require(listening.split(separator: "=").last.map(String.init))
        #expect(try Self.curl("http://127.0.0.1:\(port)/fast") == "ok\n")
        #expect(try Self.curl("http://127.0.0.1:\(port)/slow") == "slow\n")
        #expect(try Self.curl("http://127.0.0.1:\(port)/quit") == "ok\n")
        let result = try lagmon.finish()
        #expect(result.status == 0, "\(result.stderr)")
        let report = try #require(result.report)
        #expect(report.config.loops == "auto")
        #expect(!report.diagnostics.contains { $0.code == "no-observer" }, "\(report.diagnostics)")
        let eventLoops = report.loops.filter { $0.thread.name.hasPrefix("NIO-ELT-") }
        #expect(eventLoops.count == 2, "\(report.loops.map(\.thread))")
        let blockedMs = try #require(Self.logged(result.stdout, "blocked"), "\(result.stdout)")
        #expect(report.stalls.count == 1, "\(report.stalls.map { ($0.thread, $0.durationNs) })")
        let stall = try #require(report.stalls.first)
        #expect(stall.thread.name.hasPrefix("NIO-ELT-"))
        Self.expectHoldsLogged(stall.durationNs, blockedMs, "blocked event loop")
        #expect(
            stall.culprit?.symbol == "nioHandlerBlocksEventLoop(milliseconds:)", "\(String(describing: stall.culprit))")
        // The summary shows the group once (NIO numbers groups from 0 or 1, by version).
        let group = result.lagmonLines.filter { $0.contains("-#* (2 event loops: threads ") }
        #expect(group.count == 1 && group[0].contains("lagmon: NIO-ELT-"), "\(result.lagmonLines)")
    }

    /// Hummingbird 2 runs route handlers in Swift tasks on the cooperative pool: a handler that
    /// blocks holds a pool thread, found with default flags like any blocked pool job.
    @Test func aBlockingHummingbirdRouteIsFoundWithDefaultFlags() throws {
        let lagmon = try LagmonProcess(["run", "--", Binaries.hummingbirdFixture])
        let listening = try #require(lagmon.waitForLine(containing: "listening port="))
        let port = try #require(listening.split(separator: "=").last.map(String.init))
        #expect(try Self.curl("http://127.0.0.1:\(port)/fast") == "ok\n")
        #expect(try Self.curl("http://127.0.0.1:\(port)/slow") == "slow\n")
        #expect(try Self.curl("http://127.0.0.1:\(port)/quit") == "ok\n")
        let result = try lagmon.finish()
        #expect(result.status == 0, "\(result.stderr)")
        let report = try #require(result.report)
        #expect(report.config.loops == "auto")
        #expect(!report.diagnostics.contains { $0.code == "no-observer" }, "\(report.diagnostics)")
        let blockedMs = try #require(Self.logged(result.stdout, "blocked"), "\(result.stdout)")
        // The one stall the fixture caused, and no other.
        #expect(report.stalls.count == 1, "\(report.stalls.map { ($0.observer, $0.culprit?.symbol, $0.durationNs) })")
        let stall = try #require(report.stalls.first)
        #expect(stall.observer == LoopObserver.swiftPool)
        Self.expectHoldsLogged(stall.durationNs, blockedMs, "blocking route handler")
        #expect(
            stall.culprit?.symbol == "hummingbirdRouteBlocks(milliseconds:)", "\(String(describing: stall.culprit))")
        #expect(stall.diagnosis.text.hasPrefix("blocked a cooperative thread: "), "\(stall.diagnosis.text)")
        // NIO's singleton event loop group (Hummingbird's default) is one line of the summary.
        let group = result.lagmonLines.filter { $0.contains("lagmon: NIO-SGLTN-") && $0.contains("-#* (") }
        #expect(group.count == 1 && group[0].contains(" event loops: threads "), "\(result.lagmonLines)")
    }

    /// One request with curl (a real HTTP client); returns the body.
    static func curl(_ url: String) throws -> String {
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        curl.arguments = ["curl", "--silent", "--show-error", "--max-time", "30", url]
        let output = Pipe()
        curl.standardOutput = output
        try curl.run()
        let body = output.fileHandleForReading.readDataToEndOfFile()
        curl.waitUntilExit()
        return String(decoding: body, as: UTF8.self)
    }
}
