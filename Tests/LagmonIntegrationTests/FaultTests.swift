import Foundation
import LagmonCore
import Testing

/// Crashes, kills, Ctrl-C: the report is always written and the status passed through.
@Suite(.serialized)
struct FaultTests {
    @Test func crashInTheMiddleOfAStallIsReportedAsOngoing() throws {
        let result = try LagmonProcess.run(["run", "--", Binaries.demo, "--scenario", "crash"])
        #expect(result.status == 128 + SIGSEGV)
        let report = try #require(result.report)
        #expect(report.target.signal == SIGSEGV)
        #expect(report.target.signalName == "SIGSEGV")
        #expect(report.target.exitStatus == 139)
        let stall = try #require(report.stalls.last)
        #expect(stall.ongoingAtExit)
        #expect(stall.durationNs >= 200_000_000)
        #expect(stall.durationNs < 400_000_000)
    }

    @Test func sigkillDuringAStallStillWritesTheReport() throws {
        let running = try LagmonProcess(["run", "--", Binaries.demo, "--scenario", "hang"])
        let pidLine = try #require(running.waitForLine(containing: "pid "))
        let pid = try #require(Int32(pidLine.split(separator: " ")[2]))
        _ = try #require(running.waitForLine(containing: "stalled 200ms"))
        kill(pid, SIGKILL)
        let result = try running.finish()
        #expect(result.status == 128 + SIGKILL)
        let report = try #require(result.report)
        #expect(report.target.signalName == "SIGKILL")
        let stall = try #require(report.stalls.last)
        #expect(stall.ongoingAtExit)
        #expect(stall.durationNs >= 200_000_000)
    }

    @Test func ctrlCIsForwardedAndTheReportWritten() throws {
        let running = try LagmonProcess(["run", "--", Binaries.demo, "--scenario", "idle", "--seconds", "60"])
        _ = try #require(running.waitForLine(containing: "idle for"))
        kill(running.pid, SIGINT)
        let result = try running.finish()
        #expect(result.status == 128 + SIGINT)
        let report = try #require(result.report)
        #expect(report.target.signalName == "SIGINT")
        #expect(report.target.wallNs < 30_000_000_000)
        #expect(report.stalls.isEmpty)
    }

    @Test func sigtermIsForwardedToo() throws {
        let running = try LagmonProcess(["run", "--", Binaries.demo, "--scenario", "idle", "--seconds", "60"])
        _ = try #require(running.waitForLine(containing: "idle for"))
        kill(running.pid, SIGTERM)
        let result = try running.finish()
        #expect(result.status == 128 + SIGTERM)
        #expect(result.report?.target.signalName == "SIGTERM")
    }
}
