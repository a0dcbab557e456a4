import Foundation
import Glibc
import LagmonCore
import LagmonTestSupport
import Testing

/// Messages that used to name the wrong problem (docs/troubleshooting.md has each as a heading).
@Suite(.serialized)
struct SmallErrorTests {
    /// Minutes (and hours) are units, as docs/attach.md's `--duration 1m` uses them.
    @Test func minutesAreADurationUnit() throws {
        let result = try LagmonProcess.run(["run", "--quiet", "--threshold", "1m", "--", "/bin/true"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.report?.config.thresholdNs == 60_000_000_000)
    }

    @Test func aScriptWhoseInterpreterIsMissingSaysSo() throws {
        let script = temporaryPath("script.sh")
        defer { try? FileManager.default.removeItem(atPath: script) }
        try Data("#!/nonexistent/lagmon-interpreter -x\necho hi\n".utf8).write(to: URL(fileURLWithPath: script))
        chmod(script, 0o755)
        let result = try LagmonProcess.run(["run", "--", script], json: false)
        #expect(result.status == 126)
        #expect(
            result.stderr
                == "lagmon: cannot execute \(script): its interpreter /nonexistent/lagmon-interpreter (the #! line) does not exist; install it or correct the #! line\n"
        )
    }

    /// A report whose JSON is valid but holds a number its field cannot: the field and the
    /// range are named, not "not valid JSON".
    @Test func anOutOfRangeNumberIsNamed() throws {
        let path = temporaryPath("range.json")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try LagmonProcess.run(["run", "--quiet", "--", "/bin/true"])
        var json = try #require(run.reportJSON)
        var target = try #require(json["target"] as? [String: Any])
        target["wallNs"] = -5
        json["target"] = target
        try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: path))
        let result = try LagmonProcess.run(["check", path, "--budget", "stall.max < 1s"], json: false)
        #expect(result.status == 64)
        #expect(
            result.stderr
                == "lagmon: \(path) is not a lagmon JSON report (target.wallNs is -5, out of range: it takes a whole number from 0 to 18446744073709551615); write one with lagmon run --json\n"
        )
    }

    /// Attaching to a process strace already traces: stall detection works, stacks cannot, and
    /// the report says who holds the process (not "run as root", to root).
    @Test func aProcessUnderStraceIsNamedAsAlreadyTraced() throws {
        let demo = try WatchedProgram([Binaries.demo, "--scenario", "hang"])
        _ = try #require(demo.waitForLine(containing: "stalled 200ms"))
        let strace = try WatchedProgram(["/usr/bin/strace", "-p", String(demo.pid), "-o", "/dev/null"])
        defer {
            kill(strace.pid, SIGTERM)
            strace.waitForExit()
        }
        #expect(poll(seconds: 10) { demo.status("TracerPid") == String(strace.pid) })
        let result = try LagmonProcess.run(["attach", String(demo.pid), "--duration", "400ms"])
        let report = try #require(result.report)
        #expect(report.stalls.count == 1)
        let warning = try #require(report.diagnostics.first { $0.code == "stacks-unavailable" })
        #expect(
            warning.message.contains(
                "thread \(demo.pid) is already traced by pid \(strace.pid) (strace), and a thread has one tracer at a time"
            ),
            "\(warning.message)")
        #expect(!warning.message.contains("run lagmon as root"))
    }
}
