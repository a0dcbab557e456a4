import Foundation
import Glibc
import LagmonCore
import LagmonSymbols
import Testing

@testable import LagmonLinux

/// HotSpotRuntime against a real JVM: the layout its exported tables give is JDK 17's on x86_64,
/// and the interpreter's code it locates is what the JVM's own perf map calls `Interpreter`.
@Suite(.serialized)
struct HotSpotRuntimeTests {
    @Test(.enabled(if: JVMAttachTests.hasJava, "needs a JDK (scripts/install-deps installs openjdk-17-jdk-headless)"))
    func aRunningJVMsTablesGiveItsLayoutAndItsInterpreter() throws {
        let (jvm, directory) = try JVMAttachTests.idleJVM([])
        defer {
            jvm.stop()
            try? FileManager.default.removeItem(atPath: directory)
        }
        try #require(jvm.waitForLine("ready"), "the JVM did not start")
        let map = try #require(ProcessMemoryMap.read(pid: jvm.pid))
        var problems: [TargetFileProblem] = []
        let layout = try #require(
            HotSpotRuntime.find(files: TargetFileSystem(pid: jvm.pid), map: map) { problems.append($0) },
            "\(problems)")
        #expect(layout.methodSlot == -3, "frame::interpreter_frame_method_offset on x86_64")
        #expect(layout.symbolBody > layout.symbolLength && layout.constantPoolSize > layout.constantPoolLength)
        #expect(layout.interpreterEnd > layout.interpreterStart)

        let outcome = JVMAttach.requestPerfMap(pid: jvm.pid, timeoutNs: JVMAttachTests.timeoutNs)
        guard case .success(let request) = outcome else {
            Issue.record("the perf-map request failed: \(outcome)")
            return
        }
        defer { _ = JVMAttach.clean(request, exited: false) }
        var perfMap = PerfMap()
        perfMap.append(try Data(contentsOf: URL(fileURLWithPath: "/tmp/perf-\(jvm.pid).map")))
        let interpreter = try #require(perfMap.entries.first { $0.name == "Interpreter" })
        #expect(
            interpreter.start <= layout.interpreterStart
                && layout.interpreterEnd <= interpreter.start + interpreter.size,
            "tables: \(layout.interpreterStart)..<\(layout.interpreterEnd), map: \(interpreter)")
    }
}
