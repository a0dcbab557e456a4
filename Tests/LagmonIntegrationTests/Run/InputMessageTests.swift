import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// Bad input names the real problem: a negative value given as the next word, a duration too
/// long to count, a directory where a file is read, a FIFO with no writer (exit 64 each, one line).
struct InputMessageTests {
    @Test(arguments: [
        (
            ["run", "--kill-after", "-1s", "--", "true"],
            "'-1s' is invalid for '--kill-after <duration>': negative durations are invalid"
        ),
        (["run", "--sample-interval", "-5ms", "--", "true"], "negative durations are invalid"),
        (["run", "--threshold", "99999999999h", "--", "true"], "too long: lagmon counts durations up to 2562047h"),
        (["report", "/etc"], "cannot read the report /etc: it is a directory; give the path of a file"),
        (["run", "--budget-file", "/etc", "--", "true"], "cannot read the budget file /etc: it is a directory"),
    ])
    func theMessageNamesTheProblem(arguments: [String], message: String) throws {
        let result = try LagmonProcess.run(arguments, json: false)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!result.stderr.contains("missing value") && !result.stderr.contains("not readable"))
    }

    /// A report or budget file can come through a pipe (`-`, `/dev/stdin`, `<(…)`): read to its
    /// end. A FIFO nobody writes to is named, at once, not waited on.
    @Test func inputsComeThroughPipesAndAnEmptyFIFOIsNamed() throws {
        let directory = temporaryPath("input-pipes")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let report = directory + "/r.json"
        let wrote = try LagmonProcess.run(["run", "--quiet", "--json", report, "--", "true"], json: false)
        try #require(wrote.status == 0, "\(wrote.stderr)")
        try "{\"budgets\": [{\"budget\": \"cpu[main].avg < 80%\", \"level\": \"error\"}]}".write(
            toFile: directory + "/budgets.json", atomically: true, encoding: .utf8)
        let lagmon = Binaries.lagmon
        for (command, expected) in [
            ("cat r.json | '\(lagmon)' check - --budget 'cpu[main].avg<80%'", "PASS"),
            ("cat r.json | '\(lagmon)' report /dev/stdin", "exited with status 0"),
            ("bash -c \"'\(lagmon)' diff <(cat r.json) r.json\"", "PASS"),
            ("cat budgets.json | '\(lagmon)' check r.json --budget-file /dev/stdin", "PASS"),
        ] {
            let run = try ToolRun.run(["sh", "-c", "cd '\(directory)' && \(command)"])
            #expect(run.status == 0, "\(command): \(run.stderr)")
            #expect(run.output.contains(expected), "\(command): \(run.output)")
            #expect(!run.stderr.contains("cannot read"), "\(command): \(run.stderr)")
        }
        let fifo = directory + "/fifo"
        try #require(mkfifo(fifo, 0o600) == 0)
        for arguments in [["report", fifo], ["run", "--budget-file", fifo, "--", "true"]] {
            let result = try LagmonProcess.run(arguments, json: false)
            #expect(result.status == 64)
            #expect(result.stderr.contains("\(fifo): it is a pipe or FIFO that gave nothing"), "\(result.stderr)")
        }
    }

    /// A program's own negative argument after `--` is left alone.
    @Test func aProgramsNegativeArgumentIsItsOwn() throws {
        let result = try LagmonProcess.run(["run", "--quiet", "--", "/bin/echo", "--count", "-1s"], json: false)
        #expect(result.status == 0)
        #expect(result.stdout == "--count -1s\n")
    }
}
