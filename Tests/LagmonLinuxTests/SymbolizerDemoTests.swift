import Foundation
import Glibc
import LagmonCore
import Testing

@testable import LagmonLinux

/// Symbolizes the stack of another process: the demo, stalled in `decodeImage`.
@Suite(.serialized)
struct SymbolizerDemoTests {
    @Test func theStalledDemoShowsDecodeImageWithItsLine() throws {
        let demo = try SymbolizerDemoTarget()
        defer { demo.stop() }
        let map = try #require(ProcessMemoryMap.read(pid: demo.pid))
        let symbolizer = Symbolizer()
        let frames = try Self.firstStallingSample(of: demo, map: map, symbolizer: symbolizer)
        let decode = try #require(frames.first { $0.symbol == "static ImageDecoder.decodeImage(_:row:budgetNs:)" })
        #expect(decode.module == "lagmon-demo")
        #expect(decode.file?.hasSuffix("/Sources/lagmon-demo/ImageDecoder.swift") == true)
        #expect(decode.line == Self.demoLine(containing: "data.withUnsafeBytes", in: "ImageDecoder.swift"))
        #expect(frames.contains { $0.symbol == "closure #1 in static ImageDecoder.decodeImage(_:row:budgetNs:)" })
        let hang = try #require(frames.first { $0.symbol == "FaultScenarios.hangUntilKilled()" })
        #expect(hang.line == Self.demoLine(containing: "while true", in: "FaultScenarios.swift"))
        // Foundation and CoreFoundation frames below: names from the symbol tables, no lines.
        #expect(frames.contains { $0.symbol == "RunLoop.run(until:)" && $0.module == "libFoundation.so" })
        #expect(frames.contains { $0.symbol == "__CFRunLoopRun" && $0.module == "libFoundation.so" && $0.line == nil })
        #expect(frames[0].symbol != nil)  // the pc: wherever the loop was, it has a name
    }

    /// Prints the cost of symbolizing the stacks of a whole `naive` run (six decode stalls, the
    /// timer callbacks and run loop around them), cold (a new symbolizer: ELF images read,
    /// llvm-symbolizer started) and warm (the same stacks again: the cache answers).
    @Test func measuresColdAndWarmSymbolization() throws {
        let demo = try SymbolizerDemoTarget(scenario: "naive", readyText: "scenario naive")
        defer { demo.stop() }
        let map = try #require(ProcessMemoryMap.read(pid: demo.pid))
        var samples: [[UInt64]] = []
        // Sample back to back until the demo exits (sampling then fails).
        while samples.count < 20_000, let stack = try? demo.sampleMainThread() { samples.append(stack) }
        let stacks = Array(Set(samples))  // identical stacks cost nothing more: measure the distinct ones
        let distinct = Set(stacks.flatMap { $0 }).count
        var report =
            "symbolizing \(distinct) distinct addresses in \(stacks.count) distinct stacks of \(samples.count) samples:"
        for tool in [SymbolizerTool.locate(), .none] {
            let symbolizer = Symbolizer(tool: tool)
            let cold = Self.time { _ = symbolizer.symbolize(stacks: stacks, map: map, pid: demo.pid) }
            let warm = Self.time { _ = symbolizer.symbolize(stacks: stacks, map: map, pid: demo.pid) }
            let frames = symbolizer.symbolize(stacks: stacks, map: map, pid: demo.pid).flatMap { $0 }
            let named = Set(frames.filter { $0.symbol != nil }.map(\.address)).count
            report += "\n  \(tool): cold \(cold / 1000) µs, warm \(warm / 1000) µs, \(named) addresses named"
            #expect(frames.contains { $0.symbol == "static ImageDecoder.decodeImage(_:row:budgetNs:)" })
            #expect(warm < cold)
            #expect(cold < 5_000_000_000)
        }
        print(report)
    }

    /// The first sample taken inside the endless decode loop. Reading `stalled` from the pipe
    /// means the demo wrote it, not that `write` returned: the first samples may still be in
    /// `announce` or in the file removal that follows, a few microseconds before the loop.
    private static func firstStallingSample(
        of demo: SymbolizerDemoTarget, map: ProcessMemoryMap, symbolizer: Symbolizer
    ) throws -> [Frame] {
        for _ in 0..<1000 {
            let stack = try demo.sampleMainThread()
            let frames = symbolizer.symbolize(stacks: [stack], map: map, pid: demo.pid)[0]
            if frames.contains(where: { $0.symbol?.contains("decodeImage") == true }) { return frames }
        }
        throw SymbolizerDemoTarget.Failure.notReady("1000 samples, none in decodeImage")
    }

    private static func time(_ body: () -> Void) -> UInt64 {
        let start = MonotonicClock.nowNs()
        body()
        return MonotonicClock.nowNs() - start
    }

    /// The 1-based line of the first line of the demo's `file` containing `text`.
    private static func demoLine(containing text: String, in file: String) -> Int? {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let source = try? String(
            contentsOf: root.appendingPathComponent("Sources/lagmon-demo/\(file)"), encoding: .utf8)
        return source?.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains(text) }
            .map { $0 + 1 }
    }
}
