import Foundation
import LagmonCore
import Testing

/// Bad input: one `lagmon:` line naming the problem and the fix, and a documented status.
struct UsageErrorTests {
    struct Case: Sendable, CustomStringConvertible {
        var arguments: [String]
        var status: Int32
        var mentions: [String]
        var description: String { arguments.joined(separator: " ") }
    }

    static let cases: [Case] = [
        Case(arguments: ["run"], status: 64, mentions: ["no command given", "--"]),
        Case(arguments: ["run", "--"], status: 64, mentions: ["no command given"]),
        Case(
            arguments: ["run", "--bogus", "--", "/bin/true"], status: 64,
            mentions: ["unknown option '--bogus'", "--help"]),
        Case(
            arguments: ["run", "--threshold", "5parsecs", "--", "/bin/true"], status: 64,
            mentions: ["5parsecs", "100ms"]),
        Case(arguments: ["run", "--threshold=-5ms", "--", "/bin/true"], status: 64, mentions: ["-5ms", "100ms"]),
        Case(arguments: ["run", "--threshold", "--", "/bin/true"], status: 64, mentions: ["--threshold"]),
        Case(
            arguments: ["run", "--threshold", "-5ms", "--", "/bin/true"], status: 64,
            mentions: ["negative durations are invalid", "100ms"]),
        Case(
            arguments: ["run", "--cpu-interval", "-1s", "--", "/bin/true"], status: 64,
            mentions: ["negative durations are invalid"]),
        Case(arguments: ["frobnicate"], status: 64, mentions: ["frobnicate"]),
        Case(
            arguments: ["run", "--json", "/nonexistent-dir/r.json", "--", "/bin/true"], status: 64,
            mentions: ["/nonexistent-dir", "does not exist"]),
        Case(
            arguments: ["run", "--", "lagmon-no-such-command"], status: 127,
            mentions: ["command not found: lagmon-no-such-command"]),
        Case(
            arguments: ["run", "--", "/nonexistent/lagmon-cmd"], status: 127,
            mentions: ["command not found: /nonexistent/lagmon-cmd", "check the path"]),
        Case(arguments: ["run", "--threshold", "0ms", "--", "/bin/true"], status: 64, mentions: ["longer than 0"]),
        Case(
            arguments: ["run", "--json", "-", "--chrome-trace", "-", "--", "/bin/true"], status: 64,
            mentions: ["--json and --chrome-trace both write to stdout"]),
        Case(
            arguments: ["attach", "1", "--json", "-", "--folded", "-"], status: 64,
            mentions: ["--json and --folded both write to stdout"]),
    ]

    @Test(arguments: cases)
    func rejected(_ example: Case) throws {
        let result = try LagmonProcess.run(example.arguments, json: false)
        #expect(result.status == example.status)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "one line, got: \(result.stderr)")
        let line = String(lines.first ?? "")
        #expect(line.hasPrefix("lagmon: "))
        for text in example.mentions { #expect(line.contains(text), "\(line) mentions \(text)") }
    }

    @Test func notExecutableIs126() throws {
        let path = temporaryPath("not-executable.sh")
        try "#!/bin/sh\nexit 0\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try LagmonProcess.run(["run", "--", path], json: false)
        #expect(result.status == 126)
        #expect(result.stderr.hasPrefix("lagmon: cannot execute \(path)"))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    /// lagmon's own failure: its probe library is missing. 125, one line naming the setting.
    @Test func aMissingProbeLibraryIs125() throws {
        let marker = temporaryPath("probe-missing-marker")
        defer { try? FileManager.default.removeItem(atPath: marker) }
        let result = try LagmonProcess.run(
            ["run", "--", "/bin/touch", marker], json: false,
            environment: ["LAGMON_PRELOAD_LIBRARY": "/nonexistent/libLagmonPreload.so"])
        #expect(result.status == 125)
        #expect(
            result.stderr
                == "lagmon: LAGMON_PRELOAD_LIBRARY names /nonexistent/libLagmonPreload.so, which cannot be read; point it at libLagmonPreload.so or unset it\n"
        )
        #expect(!FileManager.default.fileExists(atPath: marker), "the program never started")
    }

    @Test func helpIsNotAnError() throws {
        let result = try LagmonProcess.run(["run", "--help"], json: false)
        #expect(result.status == 0)
        #expect(result.stdout.contains("--threshold"))
        #expect(result.stdout.contains("127"))
    }
}

/// Command-line conventions users of py-spy, hyperfine and perf expect.
struct CommandLineConventionTests {
    @Test func capitalVPrintsTheVersionLikeVersion() throws {
        let short = try LagmonProcess.run(["-V"], json: false)
        let long = try LagmonProcess.run(["--version"], json: false)
        #expect(short.status == 0 && long.status == 0)
        #expect(!short.stdout.isEmpty && short.stdout == long.stdout)
    }

    @Test func bareLagmonPrintsHelpOnStderrAndExits64() throws {
        let result = try LagmonProcess.run([], json: false)
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("USAGE: lagmon") && result.stderr.contains("SUBCOMMANDS:"))
    }

    @Test func mistypedOptionsAndSubcommandsGetASuggestion() throws {
        let option = try LagmonProcess.run(["run", "--jsn", "r.json", "--", "/bin/true"], json: false)
        #expect(option.status == 64)
        #expect(option.stderr.lowercased().contains("did you mean '--json'?"), "\(option.stderr)")
        let command = try LagmonProcess.run(["atach", "1"], json: false)
        #expect(command.status == 64)
        #expect(command.stderr.contains("Did you mean 'attach'?"), "\(command.stderr)")
        // A lone letter is no typo of a long option (nor is `--.`, the end of "after --." in the
        // help, an option to suggest).
        let letter = try LagmonProcess.run(["run", "-x", "--", "/bin/true"], json: false)
        #expect(letter.status == 64)
        #expect(!letter.stderr.contains("did you mean"), "\(letter.stderr)")
    }

    /// The everyday flags have short forms: -t/--threshold, -o/--json, -q/--quiet.
    @Test func shortOptionsWork() throws {
        let report = temporaryPath("short.json")
        defer { try? FileManager.default.removeItem(atPath: report) }
        let run = try LagmonProcess.run(["run", "-q", "-t", "50ms", "-o", report, "--", "/bin/true"], json: false)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.lagmonLines.isEmpty, "-q: no summary: \(run.stderr)")
        let saved = try JSONReportWriter.decode(Array(try Data(contentsOf: URL(fileURLWithPath: report))))
        #expect(saved.config.thresholdNs == 50_000_000)
        let check = try LagmonProcess.run(["check", report, "-q", "--budget", "stall.count < 1"], json: false)
        #expect(check.lagmonLines.count == 1, "-q: the verdict only: \(check.stderr)")
    }
}
