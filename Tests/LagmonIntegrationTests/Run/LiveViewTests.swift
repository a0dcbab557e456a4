import Foundation
import LagmonTestSupport
import Testing

/// The live status line: drawn on the bottom row of a pseudo-terminal (`script`, 80×24) inside a
/// scroll region, erased before the summary; absent with --quiet and when stderr is a pipe.
/// LiveTerminalTests looks at the screen itself under tmux.
@Suite(.serialized)
struct LiveViewTests {
    /// `lagmon <arguments>` under `script`, which gives it a pseudo-terminal; returns all it wrote.
    static func underTerminal(_ arguments: [String]) throws -> String {
        let command =
            "stty rows 24 cols 80; " + ([Binaries.lagmon] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let result = try ToolRun.run(["timeout", "60", "script", "-qec", command, "/dev/null"])
        #expect(result.status == 0, "\(result.stderr)")
        return result.text
    }

    @Test func redrawnInPlaceOnATerminalAndErasedBeforeTheSummary() throws {
        // One 300 ms stall: 200 ms past the threshold, so redraws every 100 ms catch it in flight.
        let output = try Self.underTerminal(["run", "--", Binaries.demo, "--scenario", "lock"])
        // The bottom row reserved once (scroll region over rows 1–23), then drawn there with the
        // cursor saved and restored around each draw.
        #expect(output.components(separatedBy: "\u{1B}[1;23r").count - 1 == 1, "\(output.prefix(600))")
        let draws = output.components(separatedBy: "\u{1B}7\u{1B}[24;1Hlagmon: ").count - 1
        #expect(draws >= 3, "\(output.prefix(600))")
        #expect(output.contains("loop STALLED"))
        #expect(output.contains(" · 1 stall · worst "))
        // Released and erased before the summary: whole screen scrolls again, bottom row cleared.
        #expect(output.contains("\u{1B}7\u{1B}[r\u{1B}[24;1H\u{1B}[K\u{1B}8"))
        #expect(output.contains("1 stall over 100ms"))
    }

    @Test func attachDrawsItToo() throws {
        let demo = try WatchedProgram([Binaries.demo, "--scenario", "hang"])
        _ = try #require(demo.waitForLine(containing: "stalled 200ms"))
        let output = try Self.underTerminal(["attach", String(demo.pid), "--duration", "600ms"])
        #expect(output.contains("loop STALLED"), "\(output.prefix(600))")
        #expect(output.contains("\u{1B}7\u{1B}[r\u{1B}[24;1H\u{1B}[K\u{1B}8"))
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
