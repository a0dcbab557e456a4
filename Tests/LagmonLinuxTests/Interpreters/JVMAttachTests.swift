import Foundation
import Glibc
import LagmonCore
import Testing

@testable import LagmonLinux

/// JVMAttach against real processes: what it refuses before it signals anything (a process that
/// would die of SIGQUIT, a JVM that turned its attach mechanism off and would print a thread dump
/// instead), and real requests to idle JVMs, whose maps are written and then cleaned as lagmon
/// cleans them (the map at once, the socket of a listener it started once the JVM has died).
@Suite(.serialized)
struct JVMAttachTests {
    static let hasJava = FileManager.default.isExecutableFile(atPath: "/usr/bin/java")
    /// Generous for a loaded machine: the listener starts and the map is written within it.
    static let timeoutNs: UInt64 = 20_000_000_000

    /// A process started with its stdin and its output in pipes (kept open while the test runs).
    struct Started {
        var process: Process
        var output: Pipe
        var input: Pipe

        init(_ argv: [String]) throws {
            process = Process()
            process.executableURL = URL(fileURLWithPath: argv[0])
            process.arguments = Array(argv.dropFirst())
            output = Pipe()
            input = Pipe()
            process.standardOutput = output
            process.standardError = output
            process.standardInput = input
            try process.run()
        }

        var pid: Int32 { process.processIdentifier }

        /// Reads its output until a line `line` (true) or its end (false); blocks, no clock.
        func waitForLine(_ line: String) -> Bool {
            var text = ""
            while true {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { return false }
                text += String(decoding: chunk, as: UTF8.self)
                if text.split(separator: "\n").contains(where: { $0 == line }) { return true }
            }
        }

        /// Ends it with SIGKILL, which no signal mask or disposition it inherited can hold off
        /// (SIGTERM left `sleep` running), then removes what a failed test may have left behind
        /// (the socket a killed JVM leaves, its map).
        func stop() {
            try? input.fileHandleForWriting.close()
            if process.isRunning { kill(pid, SIGKILL) }
            process.waitUntilExit()
            unlink("/tmp/.java_pid\(pid)")
            unlink("/tmp/perf-\(pid).map")
        }
    }

    /// A JVM that prints `ready` and waits on its stdin (a source file the launcher compiles in
    /// memory), started with `options`.
    static func idleJVM(_ options: [String]) throws -> (Started, directory: String) {
        let directory = NSTemporaryDirectory() + "jvm-attach-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let source = directory + "/Idle.java"
        try """
        public class Idle {
            public static void main(String[] a) throws Exception {
                System.out.println("ready");
                System.in.read();
            }
        }
        """.write(toFile: source, atomically: true, encoding: .utf8)
        let jvm = try Started(["/usr/bin/java"] + options + [source])
        return (jvm, directory)
    }

    static func names(pid: Int32) -> (map: String, trigger: String, socket: String) {
        ("/tmp/perf-\(pid).map", "/tmp/.attach_pid\(pid)", "/tmp/.java_pid\(pid)")
    }

    @Test func aProcessThatDoesNotCatchSIGQUITIsNeverSignalled() throws {
        let sleeper = try Started(["/bin/sleep", "30"])
        defer { sleeper.stop() }
        let outcome = JVMAttach.requestPerfMap(pid: sleeper.pid, timeoutNs: Self.timeoutNs)
        guard case .failure(let failure) = outcome else {
            Issue.record("a request to sleep succeeded")
            return
        }
        #expect(failure.reason.contains("does not catch SIGQUIT"), "\(failure.reason)")
        #expect(sleeper.process.isRunning)
        #expect(!FileManager.default.fileExists(atPath: Self.names(pid: sleeper.pid).trigger))
    }

    @Test(.enabled(if: hasJava, "needs a JDK (scripts/install-deps installs openjdk-17-jdk-headless)"))
    func aJVMWithoutItsAttachMechanismIsLeftAlone() throws {
        let (jvm, directory) = try Self.idleJVM(["-XX:+DisableAttachMechanism"])
        defer {
            jvm.stop()
            try? FileManager.default.removeItem(atPath: directory)
        }
        try #require(jvm.waitForLine("ready"), "the JVM did not start")
        let outcome = JVMAttach.requestPerfMap(pid: jvm.pid, timeoutNs: Self.timeoutNs)
        guard case .failure(let failure) = outcome else {
            Issue.record("a request to a JVM without its attach mechanism succeeded")
            return
        }
        #expect(failure.reason.contains("DisableAttachMechanism"), "\(failure.reason)")
        #expect(jvm.process.isRunning)
        let names = Self.names(pid: jvm.pid)
        for path in [names.trigger, names.socket, names.map] {
            #expect(!FileManager.default.fileExists(atPath: path), "\(path) exists")
        }
    }

    /// `-Xrs` leaves SIGQUIT fatal, but such a JVM starts its attach listener at startup: lagmon
    /// asks through it without a signal, and its socket is not lagmon's to remove.
    @Test(.enabled(if: hasJava, "needs a JDK (scripts/install-deps installs openjdk-17-jdk-headless)"))
    func aJVMRunWithXrsIsAskedWithoutASignal() throws {
        let (jvm, directory) = try Self.idleJVM(["-Xrs"])
        defer {
            jvm.stop()
            try? FileManager.default.removeItem(atPath: directory)
        }
        try #require(jvm.waitForLine("ready"), "the JVM did not start")
        let names = Self.names(pid: jvm.pid)
        try #require(FileManager.default.fileExists(atPath: names.socket), "no listener at startup")
        let outcome = JVMAttach.requestPerfMap(pid: jvm.pid, timeoutNs: Self.timeoutNs)
        guard case .success(let request) = outcome else {
            Issue.record("the request failed: \(outcome)")
            return
        }
        #expect(!request.startedListener)
        #expect(jvm.process.isRunning, "the request ended the JVM")
        #expect(FileManager.default.fileExists(atPath: names.map))
        kill(jvm.pid, SIGKILL)
        jvm.process.waitUntilExit()
        let removed = JVMAttach.clean(request, exited: true)
        #expect(removed.count == 1 && removed.first?.hasSuffix("/perf-\(jvm.pid).map") == true, "\(removed)")
        #expect(FileManager.default.fileExists(atPath: names.socket), "the JVM's own socket was removed")
    }

    @Test(.enabled(if: hasJava, "needs a JDK (scripts/install-deps installs openjdk-17-jdk-headless)"))
    func anIdleJVMWritesItsMapAndLagmonRemovesWhatItCaused() throws {
        let (jvm, directory) = try Self.idleJVM([])
        defer {
            jvm.stop()
            try? FileManager.default.removeItem(atPath: directory)
        }
        try #require(jvm.waitForLine("ready"), "the JVM did not start")
        let names = Self.names(pid: jvm.pid)
        let outcome = JVMAttach.requestPerfMap(pid: jvm.pid, timeoutNs: Self.timeoutNs)
        guard case .success(let request) = outcome else {
            Issue.record("the request failed: \(outcome)")
            return
        }
        #expect(request.nsPid == jvm.pid && request.startedListener && !request.mapExisted && request.sharesTmp)
        #expect(!FileManager.default.fileExists(atPath: names.trigger), "the trigger file was left")
        #expect(FileManager.default.fileExists(atPath: names.socket))
        let map = try String(contentsOfFile: names.map, encoding: .utf8)
        #expect(map.contains("Interpreter"), "the map names no interpreter: \(map.prefix(200))")

        // While the JVM runs, only the map goes: its listener serves other tools too.
        let whileRunning = JVMAttach.clean(request, exited: false)
        #expect(whileRunning.count == 1 && whileRunning.first?.hasSuffix("/perf-\(jvm.pid).map") == true)
        #expect(!FileManager.default.fileExists(atPath: names.map))
        #expect(FileManager.default.fileExists(atPath: names.socket))
        #expect(jvm.process.isRunning, "the request ended the JVM")

        // Once it has died (SIGKILL: no exit of its own that would remove the socket), the socket
        // goes too, reached through lagmon's own /tmp.
        kill(jvm.pid, SIGKILL)
        jvm.process.waitUntilExit()
        #expect(FileManager.default.fileExists(atPath: names.socket))
        let afterExit = JVMAttach.clean(request, exited: true)
        #expect(afterExit.count == 1 && afterExit.first?.hasSuffix("/.java_pid\(jvm.pid)") == true, "\(afterExit)")
        #expect(!FileManager.default.fileExists(atPath: names.socket))
    }
}
