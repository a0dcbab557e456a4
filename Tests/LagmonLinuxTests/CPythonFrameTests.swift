import Foundation
import LagmonCore
import LagmonSymbols
import Testing

@testable import LagmonLinux

/// Python frames read from real interpreters (every version installed, see PythonInterpreters):
/// the stopped main thread's frames name the functions, file and the line the fixture logs; a
/// thread that runs no Python code keeps its native stack and gets no Python frames.
@Suite(.serialized)
struct CPythonFrameTests {
    static let root =
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    @Test(arguments: PythonInterpreters.labels)
    func framesOfABusyPythonThreadNameItsFunctionsFileAndLine(_ label: String) throws {
        guard let python = PythonInterpreters.executable(label) else {
            try Test.cancel("Python \(label) is not installed on this machine")
        }
        let fixture = PythonInterpreters.fixture(label, root: Self.root)
        // Ahead of the machine's other work (nice -15, as StackTests.ahead): a thread reaches its
        // stop only on a CPU, and at load 8 the fixture's waited past ThreadTracer.stopTimeoutNs
        // in about 1 run in 3 (all 10 native samples lost, or 26 of 30 main ones: the requests
        // queued behind a stop that never came in time were refused while it was owed; they now
        // wait for it, `OwedStopTests`).
        let target = try FixtureProcess("/usr/bin/nice", ["-n", "-15", python, fixture, "native"])
        defer { target.kill() }
        let hotLine = try #require(target.number(after: "hot line="))
        let nativeTid = try #require(target.number(after: "native tid="))
        let pid = target.pid
        let sampler = StackSampler(
            pid: pid, clock: { MonotonicClock.nowNs() }, readState: { ProcFS.threadState(pid: pid, tid: $0) })
        try sampler.start()
        // Thirty requests: on a loaded machine many samples are lost (the thread did not stop
        // within ThreadTracer.stopTimeoutNs: at load 15-20, 7-10 of 10); at least four must come
        // back with Python frames.
        for _ in 0..<30 { sampler.request(.sample(tid: pid, key: 1)) }
        sampler.request(.finish(tid: pid, key: 1))
        // A thread asleep in pause() needs a CPU to reach its stop, which a loaded machine may not
        // give it within ThreadTracer.stopTimeoutNs (a lost sample, counted): ten chances (at
        // load 15-20 three were all lost).
        for _ in 0..<10 { sampler.request(.sample(tid: Int32(nativeTid), key: 2)) }
        sampler.request(.finish(tid: Int32(nativeTid), key: 2))
        let result = sampler.stop()
        // The first samples can come before the fixture has called handle_request (it prints the
        // native tid just before): those hold `<module>` alone, which is right, and are left out.
        let main = try #require(result.samples[1]).filter {
            $0.interpreterFrames.contains { $0.function == "parse_feed" }
        }
        let early = result.samples[1]?.filter { $0.interpreterFrames.map(\.function) == ["<module>"] }.count ?? 0
        #expect(main.count >= 4, "parse_feed in \(main.count) of 30 samples, \(early) before it (\(label))")
        for sample in main {
            let names = sample.interpreterFrames.map(\.function)
            let parse = try #require(names.firstIndex(of: "parse_feed"), "\(names)")
            #expect(Array(names[parse...].prefix(2)) == ["parse_feed", "handle_request"], "\(names)")
            let frame = sample.interpreterFrames[parse]
            #expect(frame.file == fixture)
            #expect(frame.line == hotLine, "line \(String(describing: frame.line)) (\(label))")
            #expect(sample.interpreterFrames.last?.function == "<module>")
            #expect(sample.interpreterFrames.last?.endsEntry == true)
            #expect(sample.interpreterReadNs != nil)
        }
        // Merged: the Python frames replace interpreter entries, natives around them stay.
        let map = try #require(result.maps[1])
        let resolved = Symbolizer(tool: .none).symbolize(main, map: map, pid: pid)
        let merged = resolved.map {
            InterpreterStackMerger.merge(native: $0.frames, interpreted: $0.sample.interpreterFrames)
        }
        // Merged: the Python frames replace interpreter entries. (Whether native leaves stay
        // inside parse_feed is PythonStallTests' to check, over a whole stall: these five samples,
        // taken back to back, can all catch parse_feed's own bytecode.)
        for stack in merged {
            #expect(stack.contains { $0.symbol == "parse_feed" && $0.runtime == .python })
        }
        // Native unwinding can stop short on a sample (counted as an unwind error in reports), so
        // most stacks, not every one, reach the program's entry below the interpreter.
        let whole = merged.filter { stack in
            stack.contains {
                // 3.7's main tail-calls _Py_UnixMain, 2.7's Py_Main.
                ["main", "Py_BytesMain", "_Py_UnixMain", "Py_Main", "__libc_start_call_main"].contains($0.symbol)
            }
        }
        #expect(
            whole.count * 2 > merged.count,
            "\(whole.count) of \(merged.count) stacks reach main: \(merged.first?.map(\.displayName) ?? [])")
        // The plain native thread: no Python frames, its native stack whole.
        // The first sample that holds a stack: one whose stop did not come in time holds only the
        // thread's /proc state (a lost sample, counted in failures).
        let native = try #require(
            result.samples[2]?.first { !$0.addresses.isEmpty },
            "no sample of the native thread (\(result.failures) lost, \(String(describing: result.unavailable)))")
        #expect(native.interpreterFrames.isEmpty)
        let nativeFrames = Symbolizer(tool: .none).symbolize([native], map: try #require(result.maps[2]), pid: pid)
        #expect(
            nativeFrames.first?.frames.contains { $0.symbol == "pause" || $0.symbol == "__libc_pause" } == true,
            "\(nativeFrames.first?.frames.map(\.displayName) ?? [])")
    }
}

/// A fixture process with its stdout read line by line.
final class FixtureProcess {
    let process = Process()
    private let output = Pipe()
    private var buffered = Data()

    var pid: Int32 { process.processIdentifier }

    init(_ executable: String, _ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = output
        try process.run()
    }

    /// The number after `prefix` on the first stdout line starting with it (waits for it).
    func number(after prefix: String) -> Int? {
        while true {
            let lines = String(decoding: buffered, as: UTF8.self).split(separator: "\n")
            if let line = lines.first(where: { $0.hasPrefix(prefix) }) { return Int(line.dropFirst(prefix.count)) }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            buffered.append(chunk)
        }
    }

    /// SIGKILL: the test runner's blocked signals are inherited, so SIGTERM would wait.
    func kill() {
        Glibc.kill(pid, SIGKILL)
        process.waitUntilExit()
    }
}
