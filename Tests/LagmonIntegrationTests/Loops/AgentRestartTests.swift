import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// `lagmon attach --name` and `--pid-file` as a host agent: the process is killed and started
/// again, and the session follows it to the new one; the report, a snapshot and the live
/// metrics hold the stalls of both. The watched program is the C loop fixture under a name of
/// its own (a link named for this test run), so no other process on the machine can have it.
@Suite(.serialized)
struct AgentRestartTests {
    /// A link to the C loop fixture named `lgm-XXXXXXXX` (12 bytes: the kernel keeps it whole
    /// as the process name), in a directory of its own.
    final class NamedFixture {
        let name = "lgm-" + UUID().uuidString.prefix(8).lowercased()
        let directory = temporaryPath("named")
        var path: String { directory + "/" + name }

        init() throws {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: Binaries.loopFixture)
        }

        deinit { try? FileManager.default.removeItem(atPath: directory) }

        /// The loop idling in poll until the line `go`, then one 250 ms stall in
        /// `spin_for_250ms_in_c_loop` between 20 ms ticks, then ticking until killed.
        func start() throws -> WatchedProgram {
            let program = try WatchedProgram([
                path, "stall", "--idle-until-input", "--period-ms", "20", "--ticks-before", "2", "--stalls", "1",
                "--ticks-after", "100000000",
            ])
            _ = try #require(program.waitForLine(containing: "waiting pid="))
            // Asleep in its wait call: on a loaded machine the line can come long before the
            // loop gets a CPU again to enter it, a true busy period an attach would report.
            #expect(
                poll(seconds: 10) { program.status("State")?.hasPrefix("S") == true }, "the loop waits for its input")
            return program
        }
    }

    /// Sums `metric`'s series in the exposition at `port`; nil when the endpoint does not answer.
    static func scraped(_ metric: String, port: UInt16) -> Double? {
        guard let body = try? httpGet(port: port, path: "/metrics").body else { return nil }
        let values = body.split(separator: "\n").filter { $0.hasPrefix(metric + "{") || $0.hasPrefix(metric + " ") }
            .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }
        return values.isEmpty ? nil : values.reduce(0, +)
    }

    /// Lets `program` run its stall (it logs the stall's span once over), waits until lagmon
    /// saw it end (`ended`), then kills it: a service that dies while idle.
    static func stallAndDie(_ program: WatchedProgram, ended: () -> Bool) throws {
        program.send(line: "go")
        _ = try #require(program.waitForLine(containing: "busy "))
        let seen = poll(seconds: 60, ended)
        #expect(seen, "lagmon saw the stall end")
        kill(program.pid, SIGKILL)
        _ = program.waitForExit()
    }

    enum Source: String, CaseIterable, Sendable {
        case name, pidFile
    }

    @Test(arguments: Source.allCases)
    func aRestartedProcessIsWatchedAgainAndTheReportAndMetricsHoldBoth(source: Source) throws {
        let fixture = try NamedFixture()
        let pidFile = fixture.directory + "/app.pid"
        let first = try fixture.start()
        try "\(first.pid)\n".write(toFile: pidFile, atomically: true, encoding: .utf8)
        let chosen = source == .name ? ["--name", fixture.name] : ["--pid-file", pidFile]
        let lagmon = try LagmonProcess(["attach"] + chosen + ["--metrics-listen", "127.0.0.1:0"])
        let reportPath = try #require(lagmon.reportPath)
        defer { for path in AgentTests.snapshots(of: reportPath) { try? FileManager.default.removeItem(atPath: path) } }
        let listening = try #require(lagmon.waitForErrorLine(containing: "metrics at http://127.0.0.1:"))
        let port = try #require(
            UInt16(listening.split(separator: ":").last?.split(separator: "/").first ?? ""), "\(listening)")
        _ = try #require(lagmon.waitForErrorLine(containing: "attached to pid \(first.pid) "))
        #expect(Self.scraped("lagmon_target_up", port: port) == 1)
        try Self.stallAndDie(first) { Self.scraped("lagmon_stalls_total", port: port) == 1 }
        _ = try #require(lagmon.waitForErrorLine(containing: "exited; waiting for a new process"))
        #expect(Self.scraped("lagmon_stalls_total", port: port) == 1)
        #expect(Self.scraped("lagmon_target_up", port: port) == 0, "down between the two processes")
        #expect(Self.scraped("lagmon_target_restarts_total", port: port) == 0)

        let second = try fixture.start()
        try "\(second.pid)\n".write(toFile: pidFile, atomically: true, encoding: .utf8)
        _ = try #require(lagmon.waitForErrorLine(containing: "re-attached to pid \(second.pid) "))
        #expect(Self.scraped("lagmon_target_up", port: port) == 1)
        #expect(Self.scraped("lagmon_target_restarts_total", port: port) == 1)
        try Self.stallAndDie(second) { Self.scraped("lagmon_stalls_total", port: port) == 2 }
        // A snapshot now holds both processes' stalls, as the final report will.
        kill(lagmon.pid, SIGHUP)
        #expect(poll(seconds: 10) { AgentTests.snapshots(of: reportPath).count == 1 })
        let snapshot = try AgentTests.decode(try #require(AgentTests.snapshots(of: reportPath).first))
        #expect(snapshot.stalls.compactMap(\.pid) == [first.pid, second.pid])
        #expect(snapshot.target.restarts == 1)
        kill(lagmon.pid, SIGINT)
        let result = try lagmon.finish()
        #expect(result.status == 0, "\(result.stderr)")
        let report = try #require(result.report)
        #expect(report.target.pid == first.pid)
        #expect(report.target.restarts == 1)
        #expect(report.target.exited == true, "the last process exited too")
        #expect(report.processes?.map(\.pid) == [first.pid, second.pid])
        #expect(report.processes?.allSatisfy { $0.endNs != nil } == true, "each one's end is recorded")
        #expect(
            report.summary.stallCount == 2,
            "\(report.stalls.map { ($0.pid ?? 0, $0.startNs, $0.durationNs, $0.seenLive) }) \(first.lines) \(second.lines)"
        )
        #expect(report.stalls.map(\.pid) == [first.pid, second.pid])
        for stall in report.stalls {
            #expect(stall.culprit?.symbol == "spin_for_250ms_in_c_loop", "each process's stall has its stacks")
            #expect(!stall.ongoingAtExit)
        }
        #expect(report.loops.map(\.pid) == [first.pid, second.pid])
    }

    @Test func withOnceTheSessionEndsWhenTheProcessExits() throws {
        let fixture = try NamedFixture()
        let program = try fixture.start()
        let lagmon = try LagmonProcess(["attach", "--name", fixture.name, "--once"])
        _ = try #require(lagmon.waitForErrorLine(containing: "attached to pid \(program.pid) "))
        kill(program.pid, SIGKILL)
        _ = program.waitForExit()
        let result = try #require(try lagmon.finish(withinSeconds: 60), "lagmon ended with the process")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.report?.target.exited == true)
        #expect(result.report?.target.restarts == nil)
        #expect(!result.stderr.contains("waiting for a new process"))
    }

    @Test func aNameNoProcessHasOrSeveralHaveIsOneLineWithItsStatus() throws {
        let fixture = try NamedFixture()
        let none = try LagmonProcess.run(["attach", "--name", fixture.name])
        #expect(none.status == 127)
        #expect(none.stderr.hasPrefix("lagmon: no process is named \(fixture.name); "), "\(none.stderr)")
        #expect(none.stderr.split(separator: "\n").count == 1, "\(none.stderr)")

        let one = try fixture.start()
        let other = try fixture.start()
        let two = try LagmonProcess.run(["attach", "--name", fixture.name])
        #expect(two.status == 64)
        let pids = [one.pid, other.pid].sorted().map(String.init).joined(separator: ", ")
        #expect(two.stderr.hasPrefix("lagmon: 2 processes are named \(fixture.name) (pids \(pids)); "), "\(two.stderr)")
        #expect(two.stderr.split(separator: "\n").count == 1, "\(two.stderr)")
    }
}
