import Foundation
import LagmonCore
import Testing

/// SIGINT, SIGTERM and SIGHUP reach the program with `--metrics-listen` too (its threads start
/// before the program: they once had an empty mask, and a SIGTERM killed lagmon), and before the
/// program starts a FIFO output with no reader is refused at once instead of hanging lagmon.
@Suite(.serialized)
struct EarlySignalTests {
    /// The target traps the signal, says so and exits 42: lagmon exits 42 with its report.
    @Test(arguments: [("TERM", SIGTERM), ("INT", SIGINT), ("HUP", SIGHUP)])
    func aSignalToLagmonWithMetricsOnReachesTheProgram(name: String, signal: Int32) throws {
        let port = try freeLoopbackPort()
        let lagmon = try LagmonProcess([
            "run", "--metrics-listen", "127.0.0.1:\(port)", "--", "/bin/sh", "-c",
            "trap 'echo got-\(name); exit 42' \(name); echo ready; while :; do sleep 0.02; done",
        ])
        #expect(lagmon.waitForLine(containing: "ready", withinSeconds: 60) != nil)
        #expect(try httpGet(port: port, path: "/metrics").status == 200)
        kill(lagmon.pid, signal)
        let result = try #require(try lagmon.finish(withinSeconds: 30), "lagmon still ran after 30 s")
        #expect(result.stdout.contains("got-\(name)"), "\(result.stdout) \(result.stderr)")
        #expect(result.status == 42, "\(result.stderr)")
        #expect(result.report?.target.exitStatus == 42)
    }

    /// `mkfifo f; lagmon run --json f -- true`: no reader, so no open of it can finish; lagmon
    /// says so before the program starts (64) instead of sitting in open for ever.
    @Test func aFIFOOutputWithNoReaderIsAUsageError() throws {
        let fifo = NSTemporaryDirectory() + "lagmon-fifo-\(UUID().uuidString)"
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        let marker = NSTemporaryDirectory() + "lagmon-fifo-ran-\(UUID().uuidString)"
        let lagmon = try LagmonProcess(["run", "--json", fifo, "--", "/bin/sh", "-c", "touch \(marker)"], json: false)
        let result = try #require(try lagmon.finish(withinSeconds: 30), "lagmon still ran after 30 s")
        #expect(result.status == 64)
        #expect(result.stderr.contains("\(fifo)") && result.stderr.contains("no reader"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: marker))
    }
}
