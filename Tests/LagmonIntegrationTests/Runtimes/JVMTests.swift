import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// Java on a real JVM (Tests/Fixtures/lagmon-java-fixture, compiled here with javac): a NIO
/// Selector loop and a Netty server are watched through libnio's epoll_wait like any loop; their
/// stalls name the Java method from the perf map lagmon asks the JVM for while it runs (the
/// attach mechanism, as `jcmd PID Compiler.perfmap`) or, interpreted, from the interpreter frame
/// (the `Method*` HotSpot keeps there, read through the JVM's vmStructs tables); HotSpot's sleeps,
/// waits and parks are told from a contended `synchronized`; and the files lagmon caused are gone
/// afterwards.
@Suite(.serialized)
struct JVMTests {
    static let fixtures = Binaries.packageRoot + "/Tests/Fixtures/lagmon-java-fixture"
    static let hasJDK = FileManager.default.isExecutableFile(atPath: "/usr/bin/javac")
    /// Debian's Netty jars (libnetty-java).
    static let nettyJars = ["common", "buffer", "transport", "codec", "resolver", "handler"].map {
        "/usr/share/java/netty-\($0).jar"
    }
    static let hasNetty = nettyJars.allSatisfy { FileManager.default.fileExists(atPath: $0) }
    /// C1 only (`-XX:TieredStopAtLevel=1`): the handler is compiled within its warm-up's first
    /// 200 calls even on a loaded machine, and never recompiled by C2 meanwhile; C2 would also
    /// compile the warm-up's never-taken paths as traps, which deoptimize into the interpreter.
    static let java = ["java", "-XX:TieredStopAtLevel=1"]

    /// The fixtures compiled into a fresh directory (with Netty's jars when `netty`).
    static func compile(netty: Bool = false) throws -> String {
        let directory = temporaryPath("java")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let sources = ["SelectorLoop", "Handler", "Client", "Holder"] + (netty ? ["NettyServer"] : [])
        let built = try ToolRun.run(
            ["javac", "-d", directory] + (netty ? ["-cp", nettyJars.joined(separator: ":")] : [])
                + sources.map { fixtures + "/\($0).java" })
        try #require(built.status == 0, "javac failed: \(built.stderr)")
        return directory
    }

    /// The value of `name=` on a line of `output`.
    static func value(_ name: String, in output: String) -> Int32? {
        output.split(separator: "\n").first { $0.hasPrefix(name + "=") }.flatMap { Int32($0.dropFirst(name.count + 1)) }
    }

    /// What lagmon may have made in /tmp for JVM `pid`: none of it is left.
    static func expectNoFilesLeft(pid: Int32) {
        for name in ["perf-\(pid).map", ".attach_pid\(pid)", ".java_pid\(pid)"] {
            #expect(!FileManager.default.fileExists(atPath: "/tmp/" + name), "/tmp/\(name) left behind")
        }
    }

    /// The Selector loop's 300 ms handler stall: the longest. Not the last: on a loaded machine
    /// the loop's way out after its last message (main returns, the JVM shuts down, no wait
    /// follows) can outlast the threshold.
    static func handlerStall(_ report: Report, _ stderr: String) throws -> StallReport {
        try #require(report.stalls.max { $0.durationNs < $1.durationNs }, "no stall; \(stderr)")
    }

    /// Within 5 % of the handler's 300 ms (timed by the wall clock), plus the time the kernel says
    /// the thread waited for a CPU during the stall (a loaded machine delays the loop's return to
    /// its wait after the handler, and that is part of the stall).
    static func expectHandlerDuration(_ stall: StallReport, heldMs: Int32? = nil) {
        let milliseconds = Double(stall.durationNs) / 1e6
        let waitedMs = Double(stall.contention?.runQueueNs ?? 0) / 1e6
        // A lock's holder can itself be kept off its CPU past its 300 ms (a loaded machine):
        // the loop then waits as long as the holder says it held the monitor.
        let upperMs = max(315, Double(heldMs ?? 0) + 15) + waitedMs
        #expect(
            milliseconds >= 285 && milliseconds <= upperMs,
            "stall of \(milliseconds) ms, \(waitedMs) ms of it waiting for a CPU, lock held \(heldMs.map { "\($0) ms" } ?? "-")"
        )
    }

    @Test(.enabled(if: hasJDK, "needs a JDK (scripts/install-deps installs openjdk-17-jdk-headless)"))
    func aSelectorLoopStallNamesTheJITCompiledJavaMethod() throws {
        let classes = try Self.compile()
        defer { try? FileManager.default.removeItem(atPath: classes) }
        let result = try LagmonProcess.run(["run", "--"] + Self.java + ["-cp", classes, "SelectorLoop", "spin"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("done"))
        let report = try #require(result.report)
        let stall = try Self.handlerStall(report, result.stderr)
        Self.expectHandlerDuration(stall)
        let culprit = try #require(stall.culprit)
        #expect(culprit.symbol == "Handler.spinFor", "culprit \(culprit.displayName); \(stall.stacks)")
        #expect(culprit.runtime == .java)
        #expect([.cpu, .runqueue].contains(stall.diagnosis.kind), "\(stall.diagnosis)")
        Self.expectNoFilesLeft(pid: try #require(Self.value("pid", in: result.stdout)))
    }

    /// Each mode of the fixture and what its 300 ms stall should be diagnosed as.
    struct Wait: CustomTestStringConvertible, Sendable {
        var mode: String
        var kind: StallDiagnosis.Kind
        var text: String
        var testDescription: String { mode }
    }

    static let waits = [
        Wait(mode: "sleep", kind: .sleep, text: "java.lang.Thread.sleep"),
        Wait(mode: "wait", kind: .sleep, text: "java.lang.Object.wait"),
        Wait(mode: "park", kind: .sleep, text: "LockSupport.park"),
        Wait(mode: "lock", kind: .lock, text: "Java monitor"),
    ]

    @Test(.enabled(if: hasJDK, "needs a JDK (scripts/install-deps installs openjdk-17-jdk-headless)"), arguments: waits)
    func javaSleepsWaitsAndParksAreNotLocksButSynchronizedIs(wait: Wait) throws {
        let classes = try Self.compile()
        defer { try? FileManager.default.removeItem(atPath: classes) }
        let result = try LagmonProcess.run(["run", "--"] + Self.java + ["-cp", classes, "SelectorLoop", wait.mode])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try #require(result.report)
        let stall = try Self.handlerStall(report, result.stderr)
        Self.expectHandlerDuration(stall, heldMs: Self.value("heldms", in: result.stdout))
        #expect(stall.diagnosis.kind == wait.kind, "\(stall.diagnosis)")
        #expect(stall.diagnosis.text.contains(wait.text), "\(stall.diagnosis)")
        #expect(stall.lock == nil)
        Self.expectNoFilesLeft(pid: try #require(Self.value("pid", in: result.stdout)))
    }

    /// With `-Xint` every method runs in HotSpot's interpreter: the spinning handler and its
    /// callers are named from the interpreter frames (their `Method*`, read from the target).
    @Test(.enabled(if: hasJDK, "needs a JDK (scripts/install-deps installs openjdk-17-jdk-headless)"))
    func anInterpretedSelectorLoopHandlerIsNamedFromItsInterpreterFrame() throws {
        let classes = try Self.compile()
        defer { try? FileManager.default.removeItem(atPath: classes) }
        let result = try LagmonProcess.run(["run", "--", "java", "-Xint", "-cp", classes, "SelectorLoop", "spin"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("done"))
        let report = try #require(result.report)
        let stall = try Self.handlerStall(report, result.stderr)
        Self.expectHandlerDuration(stall)
        let culprit = try #require(stall.culprit)
        #expect(culprit.symbol == "Handler.spinFor", "culprit \(culprit.displayName); \(stall.stacks)")
        #expect(culprit.runtime == .java)
        // Its interpreted callers are named too, up to the loop.
        let frames = stall.stacks.flatMap(\.frames).compactMap(\.symbol)
        #expect(frames.contains("Handler.handle") && frames.contains("SelectorLoop.main"), "\(stall.stacks)")
        Self.expectNoFilesLeft(pid: try #require(Self.value("pid", in: result.stdout)))
    }

    /// Netty's handler is often still interpreted when it blocks (the JIT has not compiled it on a
    /// loaded machine): named from its interpreter frame then, from the perf map once compiled.
    @Test(.enabled(if: hasJDK && hasNetty, "needs a JDK and libnetty-java (scripts/install-deps)"))
    func aNettyHandlerThatBlocksItsLoopIsTheCulprit() throws {
        let classes = try Self.compile(netty: true)
        defer { try? FileManager.default.removeItem(atPath: classes) }
        let classPath = ([classes] + Self.nettyJars).joined(separator: ":")
        let result = try LagmonProcess.run(["run", "--"] + Self.java + ["-cp", classPath, "NettyServer"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("done"))
        let report = try #require(result.report)
        // The last: Netty's first read may stall too (interpreted, allocating its buffer arena).
        let stall = try #require(report.stalls.last, "\(result.stderr)")
        Self.expectHandlerDuration(stall)
        #expect(stall.thread.name.hasPrefix("nioEventLoop"), "\(stall.thread)")
        let culprit = try #require(stall.culprit)
        // computeReply, or channelRead when the JIT inlined computeReply into it.
        #expect(
            ["BlockingHandler.computeReply", "BlockingHandler.channelRead"].contains(culprit.symbol ?? ""),
            "culprit \(culprit.displayName); \(stall.stacks)")
        Self.expectNoFilesLeft(pid: try #require(Self.value("pid", in: result.stdout)))
    }

    @Test(.enabled(if: hasJDK, "needs a JDK (scripts/install-deps installs openjdk-17-jdk-headless)"))
    func attachingToARunningJVMNamesJavaMethodsToo() throws {
        let classes = try Self.compile()
        defer { try? FileManager.default.removeItem(atPath: classes) }
        let program = try WatchedProgram([
            "/usr/bin/java", "-XX:TieredStopAtLevel=1", "-cp", classes, "SelectorLoop", "attach",
        ])
        _ = try #require(program.waitForLine(containing: "ready"))
        let tid = try #require(Self.value("tid", in: program.lines.joined(separator: "\n")))
        let lagmon = try LagmonProcess(["attach", String(program.pid), "--thread", String(tid)])
        _ = try #require(lagmon.waitForErrorLine(containing: "attached to pid"))
        program.send(line: "go")
        let result = try lagmon.finish()
        #expect(program.waitForExit() == 0)
        let report = try #require(result.report)
        #expect(report.stalls.count == 2, "\(report.stalls.map(\.durationNs)); \(result.stderr)")
        for stall in report.stalls {
            Self.expectHandlerDuration(stall)
            #expect(stall.culprit?.symbol == "Handler.spinFor", "culprit \(stall.culprit?.displayName ?? "none")")
        }
        Self.expectNoFilesLeft(pid: program.pid)
    }
}
