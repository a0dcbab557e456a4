import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// `lagmon attach` as a long-running agent: report snapshots at SIGHUP and every
/// `--report-every`, the newest `--keep` of them kept, and the process picked by `--pid-file`.
@Suite(.serialized)
struct AgentTests {
    /// The numbered snapshots of the report at `reportPath`, by number.
    static func snapshots(of reportPath: String) -> [String] {
        let directory = (reportPath as NSString).deletingLastPathComponent
        let stem = ((reportPath as NSString).lastPathComponent as NSString).deletingPathExtension + "."
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasPrefix(stem) && $0.hasSuffix(".json") && $0.count == stem.count + 9 }.sorted()
            .map { directory + "/" + $0 }
    }

    static func decode(_ path: String) throws -> Report {
        try ReportSchema.validate(path: path)
        return try JSONReportWriter.decode(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    @Test func sighupWritesASnapshotWithTheStallSoFarAndWatchingGoesOn() throws {
        let demo = try WatchedProgram([Binaries.demo, "--scenario", "hang", "--wait-for-input"])
        _ = try #require(demo.waitForLine(containing: "waiting for a line on stdin"))
        let lagmon = try LagmonProcess(["attach", String(demo.pid)])
        let reportPath = try #require(lagmon.reportPath)
        defer { for path in Self.snapshots(of: reportPath) { try? FileManager.default.removeItem(atPath: path) } }
        _ = try #require(lagmon.waitForErrorLine(containing: "attached to pid"))
        demo.send(line: "go")
        _ = try #require(demo.waitForLine(containing: "stalled 200ms"))
        kill(lagmon.pid, SIGHUP)
        #expect(poll(seconds: 10) { Self.snapshots(of: reportPath).count == 1 }, "a snapshot appears")
        let snapshotPath = try #require(Self.snapshots(of: reportPath).first)
        #expect(snapshotPath.hasSuffix(".0001.json"))
        let snapshot = try Self.decode(snapshotPath)
        #expect(snapshot.stalls.count == 1, "the stall in progress, so far")
        #expect(snapshot.target.attached == true)
        // With its stacks so far, as the final report will have them.
        #expect(snapshot.sampling.unavailable == nil)
        #expect(snapshot.stalls.first?.samples ?? 0 > 0)
        #expect(snapshot.stalls.first?.culprit?.symbol?.contains("decodeImage") == true, "\(snapshot.stalls)")
        kill(lagmon.pid, SIGINT)
        let result = try lagmon.finish()
        #expect(result.status == 0, "SIGHUP did not end the session: SIGINT did")
        let report = try #require(result.report)
        #expect(report.stalls.count == 1)
        #expect(report.stalls.first?.samples ?? 0 > 0)
        #expect(demo.runsUntraced)
    }

    /// A Python loop that waits in select for a line on stdin, stays busy (no wait call) until
    /// file `argv[1]` exists, then waits in select again.
    private static let spinUntilFile = """
        import os, select, sys
        print("ready", flush=True)
        select.select([sys.stdin], [], [])
        sys.stdin.readline()
        print("spinning", flush=True)
        while not os.path.exists(sys.argv[1]):
            pass
        print("done", flush=True)
        select.select([sys.stdin], [], [])
        """

    /// However long a stall lasts, an attach keeps at most 32 of its samples (`SampleThinning`:
    /// its memory would grow with the longest stall otherwise), while every sample taken is
    /// counted. The loop spins until lagmon's metrics say 80 samples were taken (past 32 the
    /// sampler takes one request in 2, then in 4…: about 500 requests, 5 s; a few samples may be
    /// of its CPU alert, not of the stall).
    @Test func aLongStallKeepsAtMost32SamplesAndCountsEveryOneTaken() throws {
        let flag = temporaryPath("spin-until")
        defer { try? FileManager.default.removeItem(atPath: flag) }
        let program = try WatchedProgram(["/usr/bin/python3", "-c", Self.spinUntilFile, flag])
        _ = try #require(program.waitForLine(containing: "ready"))
        let lagmon = try LagmonProcess(["attach", String(program.pid), "--metrics-listen", "127.0.0.1:0"])
        let listening = try #require(lagmon.waitForErrorLine(containing: "metrics at http://127.0.0.1:"))
        let port = try #require(
            UInt16(listening.split(separator: ":").last?.split(separator: "/").first ?? ""), "\(listening)")
        _ = try #require(lagmon.waitForErrorLine(containing: "attached to pid"))
        program.send(line: "go")
        _ = try #require(program.waitForLine(containing: "spinning"))
        let taken = poll(seconds: 120) {
            AgentRestartTests.scraped("lagmon_stack_samples_total", port: port) ?? 0 >= 80
        }
        #expect(taken, "80 samples taken")
        FileManager.default.createFile(atPath: flag, contents: nil)
        _ = try #require(program.waitForLine(containing: "done"))
        #expect(poll(seconds: 60) { AgentRestartTests.scraped("lagmon_stalls_total", port: port) == 1 })
        kill(lagmon.pid, SIGINT)
        let result = try lagmon.finish()
        #expect(result.status == 0, "\(result.stderr)")
        let report = try #require(result.report)
        #expect(report.stalls.count == 1)
        // The thinning holds 16 to 32 samples; a stop that did not come in time (a busy
        // machine) leaves a sample of the thread's /proc state only, held like the others but
        // not counted in the stall's `samples` (which counts stacks): at most `samplesLost`.
        let kept = report.stalls.first?.samples ?? 0
        let lost = report.sampling.samplesLost ?? 0
        #expect(kept <= 32 && kept + lost >= 16, "\(kept) stacks kept, \(lost) samples lost")
        #expect(report.sampling.samples >= 64, "the samples let go are counted")
        #expect(program.runsUntraced)
    }

    @Test func reportEveryKeepsTheNewestSnapshotsEachAValidReport() throws {
        let demo = try WatchedProgram([Binaries.demo, "--scenario", "idle", "--seconds", "120"])
        _ = try #require(demo.waitForLine(containing: "idle for"))
        let lagmon = try LagmonProcess(["attach", String(demo.pid), "--report-every", "200ms", "--keep", "2"])
        let reportPath = try #require(lagmon.reportPath)
        defer { for path in Self.snapshots(of: reportPath) { try? FileManager.default.removeItem(atPath: path) } }
        // Snapshot 3 exists only once 1 was pruned.
        #expect(poll(seconds: 10) { Self.snapshots(of: reportPath).contains { $0.hasSuffix(".0003.json") } })
        kill(lagmon.pid, SIGINT)
        let result = try lagmon.finish()
        #expect(result.status == 0)
        let kept = Self.snapshots(of: reportPath)
        #expect((1...2).contains(kept.count), "\(kept)")
        #expect(!kept.contains { $0.hasSuffix(".0001.json") })
        for path in kept {
            let snapshot = try Self.decode(path)
            #expect(snapshot.target.pid == demo.pid)
            #expect(snapshot.stalls.isEmpty)
        }
    }

    @Test func aPidFileNamesTheProcess() throws {
        let demo = try WatchedProgram([Binaries.demo, "--scenario", "idle", "--seconds", "60"])
        _ = try #require(demo.waitForLine(containing: "idle for"))
        let pidFile = temporaryPath("demo.pid")
        defer { try? FileManager.default.removeItem(atPath: pidFile) }
        try "\(demo.pid)\n".write(toFile: pidFile, atomically: true, encoding: .utf8)
        let result = try LagmonProcess.run(["attach", "--pid-file", pidFile, "--duration", "300ms"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.report?.target.pid == demo.pid)
    }

    @Test func aBadPidFileIsOneLineAndStatus64() throws {
        let pidFile = temporaryPath("bad.pid")
        defer { try? FileManager.default.removeItem(atPath: pidFile) }
        let cases: [(String?, String)] = [
            (nil, "cannot read it"), ("not a pid\n", "it does not hold a decimal pid"),
            ("2147483646\n", "no process with pid 2147483646"),
            (String(repeating: "1", count: 100), "longer than a pid file"),
        ]
        for (content, problem) in cases {
            try? FileManager.default.removeItem(atPath: pidFile)
            if let content { try content.write(toFile: pidFile, atomically: true, encoding: .utf8) }
            let result = try LagmonProcess.run(["attach", "--pid-file", pidFile])
            #expect(result.status == 64, "\(problem)")
            #expect(result.stderr.hasPrefix("lagmon: --pid-file \(pidFile): "), "\(result.stderr)")
            #expect(result.stderr.contains(problem), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        }
        let directory = try LagmonProcess.run(["attach", "--pid-file", NSTemporaryDirectory()])
        #expect(directory.status == 64)
        #expect(directory.stderr.contains("not a regular file"), "\(directory.stderr)")
    }
}
