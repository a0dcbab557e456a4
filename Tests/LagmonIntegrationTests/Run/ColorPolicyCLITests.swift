import Foundation
import LagmonTestSupport
import Testing

/// `--color` and NO_COLOR, FORCE_COLOR, CLICOLOR_FORCE: one policy for every output that can be
/// coloured (run's summary and verdict on stderr, report's summary on stdout, check's verdict).
@Suite(.serialized)
struct ColorPolicyCLITests {
    static let escape = "\u{1B}["

    /// A saved report of two stalls, made once.
    static let saved: Result<String, any Error> = Result {
        let path = temporaryPath("color.json")
        let run = try LagmonProcess.run(
            ["run", "--json", path, "--quiet", "--", Binaries.demo, "--scenario", "naive", "--rows", "2"], json: false)
        guard run.status == 0 else { throw ToolFailure(description: "lagmon run: \(run.stderr)") }
        return path
    }

    @Test func reportSummaryOnAPipeFollowsThePolicy() throws {
        let path = try Self.saved.get()
        let cases: [([String], [String: String], Bool)] = [
            ([], [:], false),
            ([], ["FORCE_COLOR": "1"], true),
            ([], ["CLICOLOR_FORCE": "1"], true),
            ([], ["FORCE_COLOR": "0"], false),
            (["--color", "always"], ["NO_COLOR": "1"], true),
            (["--color", "never"], ["FORCE_COLOR": "1"], false),
            (["--no-color"], ["FORCE_COLOR": "1"], false),
        ]
        for (options, environment, coloured) in cases {
            let result = try LagmonProcess.run(["report", path] + options, json: false, environment: environment)
            #expect(result.status == 0, "\(options) \(environment): \(result.stderr)")
            #expect(
                result.stdout.contains("stall") && result.stdout.contains(Self.escape) == coloured,
                "\(options) \(environment)")
        }
    }

    @Test func runAndCheckColourStderrOnlyWhenForced() throws {
        let path = try Self.saved.get()
        let forced = try LagmonProcess.run(
            ["check", path, "--budget", "stall.count < 1"], json: false, environment: ["FORCE_COLOR": "1"])
        #expect(forced.status == 99 && forced.stderr.contains(Self.escape))
        let plain = try LagmonProcess.run(["check", path, "--budget", "stall.count < 1"], json: false)
        #expect(plain.status == 99 && !plain.stderr.contains(Self.escape))
        let run = try LagmonProcess.run(
            ["run", "--color", "always", "--", Binaries.demo, "--scenario", "naive", "--rows", "1"], json: false)
        #expect(run.status == 0 && run.stderr.contains(Self.escape))
    }

    @Test func anUnknownColorValueIsAUsageError() throws {
        let result = try LagmonProcess.run(["report", "x.json", "--color", "sometimes"], json: false)
        #expect(result.status == 64)
        #expect(result.stderr.contains("sometimes"))
    }
}
