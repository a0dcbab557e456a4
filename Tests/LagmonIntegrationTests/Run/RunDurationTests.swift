import Foundation
import Testing

/// `lagmon run --duration D`: SIGTERM at D, SIGKILL after the grace period, each said on stderr;
/// lagmon still writes the report and passes the program's status on.
@Suite(.serialized)
struct RunDurationTests {
    @Test func sigtermAtTheLimitAndTheProgramsOwnStatus() throws {
        let log = temporaryPath("term.log")
        defer { try? FileManager.default.removeItem(atPath: log) }
        let script = "trap 'echo got-TERM > \(log); exit 3' TERM; while :; do sleep 0.05; done"
        let result = try LagmonProcess.run(["run", "--duration", "300ms", "--", "/bin/bash", "-c", script])
        #expect(result.status == 3, "\(result.stderr)")
        // The program's own log: it received SIGTERM.
        #expect(try String(contentsOfFile: log, encoding: .utf8) == "got-TERM\n")
        #expect(result.lagmonLines.contains("lagmon: --duration 300ms reached: sent SIGTERM to bash"))
        #expect(!result.stderr.contains("SIGKILL"))
        #expect(result.report?.target.exitStatus == 3)
    }

    @Test func sigkillWhenTheProgramIgnoresSigterm() throws {
        let result = try LagmonProcess.run(
            ["run", "--duration", "200ms", "--kill-after", "200ms", "--", "/bin/bash", "-c", "trap '' TERM; sleep 60"])
        #expect(result.status == 137, "\(result.stderr)")
        #expect(result.lagmonLines.contains("lagmon: --duration 200ms reached: sent SIGTERM to bash"))
        #expect(result.lagmonLines.contains("lagmon: bash still ran 200ms after SIGTERM: sent SIGKILL"))
        #expect(result.report?.target.signalName == "SIGKILL")
    }

    @Test func aProgramEndingFirstIsNotSignalled() throws {
        let result = try LagmonProcess.run(["run", "--duration", "60s", "--", "/bin/true"])
        #expect(result.status == 0)
        #expect(!result.stderr.contains("--duration"))
    }
}
