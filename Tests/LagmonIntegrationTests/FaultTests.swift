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

    /// ^C typed on lagmon's terminal reaches a target in lagmon's process group directly (lagmon
    /// does not send it twice) and is forwarded to one that left it (setsid): either way it ends.
    @Test(arguments: [[], ["setsid"]])
    func terminalCtrlCEndsTheTargetWhereverItsProcessGroup(_ prefix: [String]) throws {
        let script = Binaries.packageRoot + "/Tests/Fixtures/terminal/ctrl_c_under_pty.py"
        let command = [Binaries.lagmon, "run", "--quiet", "--"] + prefix + ["sh", "-c", "echo ready; exec sleep 30"]
        let started = Date()
        let result = try ToolRun.run(["timeout", "60", "python3", script] + command)
        #expect(result.text.contains("exit=130"), "\(result.text)")
        #expect(Date().timeIntervalSince(started) < 20, "the target ended on ^C, not after its 30 s")
    }

    /// A plain program, so the signal's default action shows: Swift programs print a backtrace on
    /// SIGQUIT and carry on.
    @Test(arguments: [(SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP"), (SIGQUIT, "SIGQUIT")])
    func otherStopSignalsAreForwardedToo(_ signal: Int32, _ name: String) throws {
        let running = try LagmonProcess(["run", "--", "/bin/sh", "-c", "echo ready; exec sleep 60"])
        _ = try #require(running.waitForLine(containing: "ready"))
        kill(running.pid, signal)
        let result = try running.finish()
        #expect(result.status == 128 + signal)
        #expect(result.report?.target.signalName == name)
    }
}

/// lagmon itself delayed: its watchdog wakes late, but the stalls (timed by the observer in the
/// target) are all still reported exactly, and the report blames lagmon, not the target.
@Suite(.serialized)
struct LateWatchdogTests {
    @Test func stoppedLagmonStillReportsEveryStallAndSaysItWasLate() throws {
        let truthPath = temporaryPath("truth.json")
        defer { try? FileManager.default.removeItem(atPath: truthPath) }
        // No stack sampling: a lagmon frozen in the middle of a sample would hold the demo
        // stopped too (as any ptrace-based tool would), and the test would wait forever.
        let running = try LagmonProcess(
            ["run", "--no-stacks", "--", Binaries.demo, "--scenario", "naive", "--truth", truthPath])
        _ = try #require(running.waitForLine(containing: "row 0 shown"))
        // Freeze lagmon (all its threads) while the demo goes through two stalls.
        kill(running.pid, SIGSTOP)
        _ = try #require(running.waitForLine(containing: "row 2 shown"))
        kill(running.pid, SIGCONT)
        let result = try running.finish()
        let report = try #require(result.report)
        let truth = try DemoTruth.load(truthPath)
        #expect(report.stalls.count == truth.count)
        for (stall, injected) in zip(report.stalls, truth) {
            #expect(injected.fits(stall.durationNs), "\(stall.durationNs) vs \(injected.durationNs)")
        }
        #expect(report.stalls.count == 6)
        // Stall 1 began and ended while lagmon was frozen (stall 2 may still be going at SIGCONT).
        #expect(report.stalls.count == 6 && !report.stalls[1].seenLive)
        #expect(report.watchdog.latenessMaxNs > 100_000_000)
        let late = try #require(report.diagnostics.first { $0.code == "watchdog-late" })
        #expect(late.message.contains("not the target"))
    }
}
