import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// The CI gate end to end: budgets on the demo, exit statuses, the verdict line, JUnit and
/// GitHub output, `lagmon check` on a saved report, and budgets rejected before the target runs.
/// Serialized: the demo's stalls are wall-clock truths.
@Suite(.serialized)
struct GateTests {
    /// The naive demo stalls six times for 140–260 ms at the default 100 ms threshold.
    static let naive = ["--", Binaries.demo, "--scenario", "naive"]

    @Test func tightBudgetFailsWith99AndAJUnitFailure() throws {
        let junit = temporaryPath("junit.xml")
        defer { try? FileManager.default.removeItem(atPath: junit) }
        let result = try LagmonProcess.run(
            ["run", "--budget", "stall.count < 1", "--budget", "stall.max < 10s", "--junit", junit] + Self.naive)
        #expect(result.status == 99, "\(result.stderr)")
        let last = try #require(result.lagmonLines.last)
        #expect(last.hasPrefix("lagmon: FAIL stall.count=6 (limit <1) · 6 stalls · blocking "), "\(last)")
        let file = try JUnitFile.read(junit)
        #expect(file.junitparser, "junitparser is installed by scripts/install-deps")
        #expect(file.tests == 2)
        #expect(file.names == ["stall.count < 1", "stall.max < 10s"])
        // The message names the culprit: the demo's decoder.
        #expect(file.failures.count == 1)
        #expect(file.failures.first?.hasPrefix("stall.count=6 (limit <1) — culprit: ") == true, "\(file.failures)")
        #expect(file.failures.first?.contains("ImageDecoder.decodeImage") == true)
        #expect(file.failureTexts.first?.contains("measured: 6") == true)
        let budgets = try #require(result.report?.budgets)
        #expect(budgets.map(\.passed) == [false, true])
        #expect(budgets.first?.measured == 6)
        #expect(budgets.last?.metric == "stall.max")
    }

    @Test func generousBudgetPasses() throws {
        let junit = temporaryPath("junit.xml")
        defer { try? FileManager.default.removeItem(atPath: junit) }
        let result = try LagmonProcess.run(
            [
                "run", "--budget", "stall.max < 5s", "--budget", "stall.count <= 50", "--budget",
                "blocking.ratio < 90%",
                "--warn", "stall.count < 1", "--junit", junit,
            ] + Self.naive)
        #expect(result.status == 0, "\(result.stderr)")
        let last = try #require(result.lagmonLines.last)
        // The demo's 6 stalls, and any a loaded machine added (a wake-up spent waiting for a CPU).
        let count = try #require(result.report?.stalls.count)
        #expect(count >= 6)
        #expect(
            last.hasPrefix("lagmon: PASS 4 budgets (1 warning: stall.count=\(count) (limit <1)) · \(count) stalls"),
            "\(last)")
        let file = try JUnitFile.read(junit)
        #expect(file.tests == 4)
        #expect(file.failures.isEmpty, "a warning is not a JUnit failure")
    }

    /// Every metric family read off a real run: each budget's measured value is the report's own
    /// number, and a limit on the wrong side of it fails.
    @Test func everyMetricIsMeasuredOnARealRun() throws {
        let metrics = [
            "stall.count", "stall.max", "stall.total", "stall.p50", "stall.p90", "stall.p99", "latency.p50",
            "latency.p90", "latency.p99", "latency.max", "blocking.total", "blocking.ratio", "cpu[main].avg",
            "cpu[main].max", "cpu[*].max",
        ]
        let units = ["stall.count": ""]
        let budgets = metrics.flatMap {
            [
                "--warn",
                "\($0) < \($0.hasPrefix("cpu") || $0 == "blocking.ratio" ? "0.0001%" : "1\(units[$0] ?? "us")")",
            ]
        }
        let result = try LagmonProcess.run(["run"] + budgets + Self.naive)
        #expect(result.status == 0, "warnings only: \(result.stderr)")
        let report = try #require(result.report)
        let results = try #require(report.budgets)
        #expect(results.map(\.metric) == metrics)
        for budget in results {
            #expect(budget.measured != nil && !budget.passed, "\(budget.expression): \(budget)")
        }
        let measured = Dictionary(uniqueKeysWithValues: results.map { ($0.metric, $0.measured ?? -1) })
        #expect(measured["stall.count"] == Double(report.summary.stallCount))
        #expect(measured["stall.max"] == Double(report.summary.longestStallNs))
        #expect(measured["stall.total"] == Double(report.summary.totalStallNs))
        #expect(measured["stall.p90"] == Double(report.summary.stallP90Ns))
        #expect(measured["latency.max"] == Double(try #require(report.loops.first).latency.maxNs))
        #expect(measured["blocking.total"] == Double(report.summary.blockingNs))
        let main = try #require(report.threads.first { $0.tid == report.target.pid })
        #expect(measured["cpu[main].avg"] == main.cpu.avgPct)
        #expect(measured["cpu[main].max"] == main.cpu.maxPct)
        #expect(try #require(measured["cpu[*].max"]) >= main.cpu.maxPct)
    }

    @Test func failingTargetKeepsItsStatusAndStillReportsTheViolation() throws {
        let junit = temporaryPath("junit.xml")
        defer { try? FileManager.default.removeItem(atPath: junit) }
        let result = try LagmonProcess.run(
            ["run", "--budget", "stall.count < 1", "--junit", junit] + Self.naive + ["--exit-status", "3"])
        #expect(result.status == 3, "the target's own failure wins")
        let last = try #require(result.lagmonLines.last)
        #expect(last.hasPrefix("lagmon: FAIL stall.count=6 (limit <1) · target exited with status 3 · 6 stalls"))
        #expect(result.report?.budgets?.first?.passed == false)
        #expect(result.report?.target.exitStatus == 3)
        #expect(try JUnitFile.read(junit).failures.first?.hasPrefix("stall.count=6 (limit <1) — culprit: ") == true)
    }

    @Test func noBudgetsNoVerdict() throws {
        let result = try LagmonProcess.run(["run", "--", "/bin/true"])
        #expect(result.status == 0)
        #expect(!result.stderr.contains("PASS") && !result.stderr.contains("FAIL"))
        #expect(result.report?.budgets == nil)
        #expect(result.reportJSON?["budgets"] == nil)
    }

    @Test func unobservedTargetFailsStallBudgetsAndAnnotatesOnStderrWhenStdoutHasTheReport() throws {
        let summary = temporaryPath("summary.md")
        try "previous step\n".write(toFile: summary, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: summary) }
        let result = try LagmonProcess.run(
            ["run", "--json", "-", "--budget", "stall.count < 1", "--", "/bin/true"], json: false,
            environment: ["GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary])
        #expect(result.status == 99)
        // stdout is the report alone: the annotation went to stderr.
        let report = try JSONReportWriter.decode(Array(result.stdout.utf8))
        #expect(report.budgets?.first?.unavailable?.contains("no run loop was observed") == true)
        #expect(
            result.stderr.contains(
                "::error title=lagmon budgets%3A stall.count < 1::stall.count not measured: no run loop was observed"))
        #expect(result.lagmonLines.last?.hasPrefix("lagmon: FAIL stall.count not measured") == true)
        let markdown = try String(contentsOfFile: summary, encoding: .utf8)
        #expect(markdown.hasPrefix("previous step\n### ❌ lagmon budgets: FAIL — `true`"), "appended: \(markdown)")
    }

    @Test func githubAnnotationsGoToStdout() throws {
        let summary = temporaryPath("summary.md")
        defer { try? FileManager.default.removeItem(atPath: summary) }
        let result = try LagmonProcess.run(
            ["run", "--budget", "stall.count < 1", "--warn", "stall.max < 1ms"] + Self.naive + ["--rows", "2"],
            environment: ["GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary])
        #expect(result.status == 99)
        let annotations = try GitHubCommand.parse(result.stdout)
        #expect(annotations.count == 2, "\(result.stdout)")
        #expect(annotations.map(\.command) == ["error", "warning"])
        #expect(annotations.first?.properties["title"] == "lagmon budgets: stall.count < 1")
        #expect(annotations.first?.message.hasPrefix("stall.count=2 (limit <1) — culprit: ") == true)
        #expect(annotations.last?.properties["title"] == "lagmon budgets: stall.max < 1ms")
        #expect(annotations.last?.message.hasPrefix("stall.max=") == true)
        let markdown = try String(contentsOfFile: summary, encoding: .utf8)
        #expect(markdown.contains("| ❌ fail | `stall.count < 1` | 2 | \\<1 | error | `"))
    }

    @Test func checkJudgesASavedReport() throws {
        let reportPath = temporaryPath("report.json")
        let markdown = temporaryPath("summary.md")
        defer {
            try? FileManager.default.removeItem(atPath: reportPath)
            try? FileManager.default.removeItem(atPath: markdown)
        }
        let run = try LagmonProcess.run(
            ["run", "--json", reportPath, "--quiet"] + Self.naive + ["--rows", "2"], json: false)
        #expect(run.status == 0)
        let pass = try LagmonProcess.run(
            ["check", reportPath, "--budget", "stall.count >= 1", "--budget", "stall.max < 10s"], json: false)
        #expect(pass.status == 0, "\(pass.stderr)")
        #expect(pass.lagmonLines.last?.hasPrefix("lagmon: PASS 2 budgets · 2 stalls") == true)
        let fail = try LagmonProcess.run(
            ["check", reportPath, "--budget", "stall.count < 1", "--summary-md", markdown, "--quiet"], json: false)
        #expect(fail.status == 99)
        #expect(fail.lagmonLines == [fail.lagmonLines.last], "--quiet: the verdict only")
        #expect(fail.lagmonLines.last?.hasPrefix("lagmon: FAIL stall.count=2 (limit <1)") == true)
        let text = try String(contentsOfFile: markdown, encoding: .utf8)
        #expect(text.hasPrefix("### ❌ lagmon budgets: FAIL"))
        // No HTML entities (shown literally where Markdown stays text); CommonMark's reference
        // renderer (cmark, which GitHub's renderer extends) turns the escaped `<1` into the text "<1".
        #expect(!text.contains("&lt;") && !text.contains("&gt;") && !text.contains("&amp;"))
        let html = try ToolRun.run(["cmark", markdown]).text
        #expect(html.contains("<h3>") && html.contains("&lt;1"), "\(html)")
        #expect(!html.contains("&amp;lt;"))
    }

    struct Rejected: Sendable, CustomStringConvertible {
        var arguments: [String]
        var mentions: [String]
        var file: String?
        var description: String { arguments.joined(separator: " ") }
    }

    static let rejected: [Rejected] = [
        Rejected(
            arguments: ["--budget", "stall.max < 25parsecs"],
            mentions: ["--budget: invalid budget 'stall.max < 25parsecs' at column 15: unknown unit 'parsecs'"]),
        Rejected(arguments: ["--warn", "stall.p95 < 1s"], mentions: ["--warn", "unknown statistic 'p95'"]),
        Rejected(arguments: ["--budget", "cpu.avg < 5%"], mentions: ["column 4", "cpu needs a thread"]),
        Rejected(
            arguments: ["--budget-file", "FILE"],
            mentions: ["invalid budget file", "budgets[1].level: 'fatal' is not a level"],
            file: #"{"budgets": [{"budget": "stall.max < 1s"}, {"budget": "stall.count < 3", "level": "fatal"}]}"#),
        Rejected(
            arguments: ["--budget-file", "FILE"],
            mentions: ["budgets[0].budget: invalid budget 'stall.max << 1s' at column 11"],
            file: #"{"budgets": [{"budget": "stall.max << 1s"}]}"#),
        Rejected(arguments: ["--budget-file", "FILE"], mentions: ["not valid JSON"], file: "{ budgets: }"),
        // JSONDecoder would keep one of the two: the file passed as "0 budgets".
        Rejected(
            arguments: ["--budget-file", "FILE"], mentions: [#"invalid budget file"#, #"duplicate key "budgets""#],
            file: #"{"budgets": [], "budgets": [{"budget": "stall.count < 0"}]}"#),
        Rejected(
            arguments: ["--budget-file", "FILE"],
            mentions: [#"budgets[1]: duplicate key "level": keep one of the two"#],
            file:
                #"{"budgets": [{"budget": "stall.max < 1s"}, {"budget": "stall.count < 3", "level": "off", "l\u0065vel": "error"}]}"#
        ),
        Rejected(arguments: ["--budget-file", "/nonexistent/lagmon.budget.json"], mentions: ["does not exist"]),
        Rejected(arguments: ["--junit", "/nonexistent-dir/j.xml"], mentions: ["JUnit report", "does not exist"]),
    ]

    @Test(arguments: rejected)
    func invalidBudgetsStopLagmonBeforeTheTargetStarts(_ example: Rejected) throws {
        let marker = temporaryPath("started")
        let budgetFile = temporaryPath("lagmon.budget.json")
        defer { try? FileManager.default.removeItem(atPath: budgetFile) }
        if let file = example.file { try file.write(toFile: budgetFile, atomically: true, encoding: .utf8) }
        let arguments = example.arguments.map { $0 == "FILE" ? budgetFile : $0 }
        let result = try LagmonProcess.run(
            ["run"] + arguments + ["--", "/bin/sh", "-c", "touch \(marker)"], json: false)
        #expect(result.status == 64)
        #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
        #expect(result.stderr.hasPrefix("lagmon: "))
        for text in example.mentions { #expect(result.stderr.contains(text), "\(result.stderr) mentions \(text)") }
        #expect(!FileManager.default.fileExists(atPath: marker), "the target never started")
    }

    @Test func checkAndDiffRejectBadInput() throws {
        let missing = try LagmonProcess.run(
            ["check", "/nonexistent/r.json", "--budget", "stall.max < 1s"], json: false)
        #expect(missing.status == 64)
        #expect(missing.stderr == "lagmon: cannot read the report /nonexistent/r.json: it does not exist\n")
        let noBudget = try LagmonProcess.run(["check", "/nonexistent/r.json"], json: false)
        #expect(noBudget.status == 64)
        #expect(noBudget.stderr.contains("no budgets given"))
        let notReport = try LagmonProcess.run(["diff", "/etc/hostname", "/etc/hostname"], json: false)
        #expect(notReport.status == 64)
        #expect(notReport.stderr.contains("is not a lagmon JSON report"))
        let badTolerance = try LagmonProcess.run(
            ["diff", "a.json", "b.json", "--max-regression", "stall.p99:10"], json: false)
        #expect(badTolerance.status == 64)
        #expect(badTolerance.stderr.contains("--max-regression: invalid tolerance 'stall.p99:10'"))
    }

    /// A saved report with a key twice (JSONDecoder would silently keep one) is not a report.
    @Test func checkAndReportRejectAReportWithADuplicateKey() throws {
        let reportPath = temporaryPath("duplicate.json")
        defer { try? FileManager.default.removeItem(atPath: reportPath) }
        let run = try LagmonProcess.run(["run", "--json", reportPath, "--quiet", "--", "/bin/true"], json: false)
        #expect(run.status == 0)
        let text = try String(contentsOfFile: reportPath, encoding: .utf8)
        #expect(text.hasPrefix("{"))
        try ("{\"target\": {}," + text.dropFirst()).write(toFile: reportPath, atomically: true, encoding: .utf8)
        for arguments in [["check", reportPath, "--budget", "stall.count < 1"], ["report", reportPath]] {
            let result = try LagmonProcess.run(arguments, json: false)
            #expect(result.status == 64, "\(arguments[0])")
            #expect(
                result.stderr
                    == "lagmon: \(reportPath) is not a lagmon JSON report (duplicate key \"target\"); write one with lagmon run --json\n",
                "\(result.stderr)")
        }
    }

    @Test func exampleBudgetFileMatchesItsSchema() throws {
        let checker = Process()
        checker.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        checker.arguments = [
            "python3", "-c",
            "import json,sys,jsonschema; jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))",
            Binaries.packageRoot + "/docs/budget.schema.json",
            Binaries.packageRoot + "/docs/lagmon.budget.example.json",
        ]
        try checker.run()
        checker.waitUntilExit()
        #expect(checker.terminationStatus == 0)
        let data = try #require(
            FileManager.default.contents(atPath: Binaries.packageRoot + "/docs/lagmon.budget.example.json"))
        #expect(try BudgetFile.parse(Array(data)).count == 5)
    }

    /// scripts/ci-example checks its own expectations (naive fails, async passes, diff fails).
    @Test func ciExampleScriptRuns() throws {
        let script = Process()
        script.executableURL = URL(fileURLWithPath: Binaries.packageRoot + "/scripts/ci-example")
        script.arguments = [Binaries.directory]
        let output = Pipe()
        script.standardOutput = output
        script.standardError = output
        try script.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        script.waitUntilExit()
        #expect(script.terminationStatus == 0, "\(text.suffix(2000))")
        #expect(text.components(separatedBy: ", as expected").count - 1 == 3)
    }

    @Test func helpListsTheGateAndItsExitStatuses() throws {
        let run = try LagmonProcess.run(["run", "--help"], json: false)
        for text in ["--budget", "--warn", "--budget-file", "--junit", "--summary-md", "99"] {
            #expect(run.stdout.contains(text), "run --help mentions \(text)")
        }
        let check = try LagmonProcess.run(["check", "--help"], json: false)
        #expect(check.status == 0)
        #expect(check.stdout.contains("99"))
        let diff = try LagmonProcess.run(["diff", "--help"], json: false)
        #expect(diff.stdout.contains("--max-regression") && diff.stdout.contains("--min-change"))
    }
}
