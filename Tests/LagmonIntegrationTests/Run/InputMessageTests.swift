import Foundation
import LagmonCore
import Testing

/// Bad input names the real problem: a negative value given as the next word, a duration too
/// long to count, a directory where a file is read (exit 64 each, one line).
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

    /// A program's own negative argument after `--` is left alone.
    @Test func aProgramsNegativeArgumentIsItsOwn() throws {
        let result = try LagmonProcess.run(["run", "--quiet", "--", "/bin/echo", "--count", "-1s"], json: false)
        #expect(result.status == 0)
        #expect(result.stdout == "--count -1s\n")
    }
}
