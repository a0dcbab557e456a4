import Foundation
import Glibc
import LagmonCore
import LagmonSymbols
import Synchronization
import Testing

@testable import LagmonLinux

/// The whole stack path against another process: StackSampler stops the stalled demo's main
/// thread, copies and unwinds its stack; the Symbolizer names the frames.
@Suite(.serialized)
struct SymbolizerDemoTests {
    @Test func theStalledDemoIsSampledAndSymbolizedToDecodeImage() throws {
        let demo = try SymbolizerDemoTarget()
        defer { demo.stop() }
        let (samples, maps) = try Self.sample(demo, count: 20)
        let map = try #require(maps.values.first)
        let resolved = Symbolizer().symbolize(samples, map: map, pid: demo.pid)
        #expect(resolved.count == 20)
        #expect(resolved.allSatisfy { $0.sample.outcome == .complete })
        let inDecode = resolved.filter { sample in
            sample.frames.contains { $0.symbol == "static ImageDecoder.decodeImage(_:row:budgetNs:)" }
        }
        // The first samples may still catch the demo leaving `announce` or removing its files.
        #expect(inDecode.count >= 18)
        // Each sample's decodeImage frame: in the demo binary, and where it has a line (code the
        // compiler attributes to line 0 has none), inside decodeImage's body.
        let decodes = inDecode.compactMap { $0.frames.first { $0.symbol?.contains("decodeImage") == true } }
        #expect(decodes.allSatisfy { $0.module == "lagmon-demo" })
        let body = try #require(Self.demoLines(of: "static func decodeImage", in: "ImageDecoder.swift"))
        let located = decodes.filter { $0.line != nil }
        #expect(!located.isEmpty, "no decodeImage frame of \(decodes.count) has a line")
        for decode in located {
            #expect(decode.file?.hasSuffix("/Sources/lagmon-demo/ImageDecoder.swift") == true)
            #expect(body.contains(decode.line ?? 0), "line \(decode.line ?? 0) inside decodeImage \(body)")
        }
        let hang = try #require(inDecode.first?.frames.first { $0.symbol == "FaultScenarios.hangUntilKilled()" })
        #expect(hang.line == Self.demoLines(of: "budgetNs: 120_000_000_000", in: "FaultScenarios.swift")?.lowerBound)
        // Foundation and CoreFoundation frames below: names from the symbol tables, no lines.
        let frames = try #require(inDecode.first?.frames)
        #expect(frames.contains { $0.symbol == "RunLoop.run(until:)" && $0.module == "libFoundation.so" })
        #expect(frames.contains { $0.symbol == "__CFRunLoopRun" && $0.module == "libFoundation.so" && $0.line == nil })
        #expect(frames.last?.symbol?.contains("start") == true, "the unwind reached the thread's entry")
    }

    @Test func samplingLeavesTheThreadRunningAndUntraced() throws {
        let demo = try SymbolizerDemoTarget()
        defer { demo.stop() }
        let (samples, _) = try Self.sample(demo, count: 5)
        #expect(samples.count == 5)
        #expect(samples.allSatisfy { $0.pauseNs > 0 && $0.state?.state == .running })
        let status = try String(contentsOfFile: "/proc/\(demo.pid)/status", encoding: .utf8)
        #expect(status.contains("TracerPid:\t0\n"))
        #expect(!status.contains("State:\tt"))
    }

    /// Samples the demo's main thread `count` times through a real StackSampler.
    static func sample(_ demo: SymbolizerDemoTarget, count: Int) throws -> ([StackSample], [UInt64: ProcessMemoryMap]) {
        let pid = demo.pid
        let sampler = StackSampler(
            pid: pid, clock: { MonotonicClock.nowNs() }, readState: { ProcFS.threadState(pid: pid, tid: $0) })
        try sampler.start()
        for _ in 0..<count { sampler.request(.sample(tid: pid, key: 7)) }
        sampler.request(.finish(tid: pid, key: 7))
        let result = sampler.stop()
        #expect(result.unavailable == nil)
        #expect(result.failures == 0)
        return (result.samples[7] ?? [], result.maps)
    }

    /// The 1-based lines of the demo's function (or statement) starting at the first line
    /// containing `text`, up to the next line that closes a declaration at the same indentation.
    static func demoLines(of text: String, in file: String) -> ClosedRange<Int>? {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        guard
            let source = try? String(
                contentsOf: root.appendingPathComponent("Sources/lagmon-demo/\(file)"), encoding: .utf8)
        else { return nil }
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        guard let first = lines.firstIndex(where: { $0.contains(text) }) else { return nil }
        let indent = lines[first].prefix { $0 == " " }
        let last = lines[first...].firstIndex { $0 == indent + "}" } ?? first
        return (first + 1)...(last + 1)
    }
}
