import Foundation
import Testing

/// The live status line: drawn in place under a pseudo-terminal (`script`), erased before the
/// summary; absent with --quiet and when stderr is a pipe.
@Suite(.serialized)
struct LiveViewTests {
    /// `lagmon <arguments>` under `script`, which gives it a pseudo-terminal; returns all it wrote.
    static func underTerminal(_ arguments: [String]) throws -> String {
        let command = ([Binaries.lagmon] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let result = try ToolRun.run(["timeout", "60", "script", "-qec", command, "/dev/null"])
        #expect(result.status == 0, "\(result.stderr)")
        return result.text
    }

    @Test func redrawnInPlaceOnATerminalAndErasedBeforeTheSummary() throws {
        // One 300 ms stall: 200 ms past the threshold, so redraws every 100 ms catch it in flight.
        let output = try Self.underTerminal(["run", "--", Binaries.demo, "--scenario", "lock"])
        let draws = output.components(separatedBy: "\rlagmon: ").count - 1
        #expect(draws >= 3, "\(output.prefix(600))")
        #expect(output.contains("loop STALLED"))
        #expect(output.contains(" · 1 stall · worst "))
        #expect(output.contains("\u{1B}[K"))
        // Erased: the summary's first line starts on a clean line right after the erase.
        #expect(output.contains("\r\u{1B}[Klagmon: "))
        #expect(output.contains("1 stall over 100ms"))
    }

    @Test func attachDrawsItToo() throws {
        let demo = try WatchedProgram([Binaries.demo, "--scenario", "hang"])
        _ = try #require(demo.waitForLine(containing: "stalled 200ms"))
        let output = try Self.underTerminal(["attach", String(demo.pid), "--duration", "600ms"])
        #expect(output.contains("loop STALLED"), "\(output.prefix(600))")
        #expect(output.contains("\r\u{1B}[Klagmon: "))
        #expect(output.contains("attached for"))
        #expect(demo.runsUntraced)
    }

    @Test func absentWithQuiet() throws {
        let output = try Self.underTerminal([
            "run", "--quiet", "--", Binaries.demo, "--scenario", "naive", "--rows", "2",
        ])
        #expect(!output.contains("lagmon:"))
        #expect(!output.contains("\u{1B}[K"))
    }

    @Test func absentWhenStderrIsAPipe() throws {
        let result = try LagmonProcess.run(["run", "--", Binaries.demo, "--scenario", "naive", "--rows", "2"])
        #expect(result.status == 0)
        #expect(!result.stderr.contains("\r"))
        #expect(!result.stderr.contains("\u{1B}"))
        #expect(!result.stderr.contains("STALLED"))
    }
}
