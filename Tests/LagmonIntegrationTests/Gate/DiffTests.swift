import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// `lagmon diff` on real reports of the demo: a regression injected into a copy of a report is
/// flagged, a change under the noise floor is not, and switching the demo from its async to
/// its naive image list shows up as new stalls.
@Suite(.serialized)
struct DiffTests {
    /// A real report of the naive demo, written once.
    static let baseline: Report? = {
        let path = temporaryPath("baseline.json")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try? LagmonProcess.run(
            ["run", "--json", path, "--quiet", "--", Binaries.demo, "--scenario", "naive", "--rows", "3"], json: false)
        guard result?.status == 0, let data = FileManager.default.contents(atPath: path) else { return nil }
        return try? JSONReportWriter.decode(Array(data))
    }()

    /// `report` with every stall `extraNs` longer, as if the code had become slower.
    static func slower(_ report: Report, by extraNs: UInt64) -> Report {
        var changed = report
        for index in changed.stalls.indices { changed.stalls[index].durationNs += extraNs }
        changed.summary = StallSummary(stalls: changed.stalls, thresholdNs: report.config.thresholdNs)
        return changed
    }

    static func save(_ report: Report, _ name: String) throws -> String {
        let path = temporaryPath(name)
        try Data(try JSONReportWriter().render(report)).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func injectedRegressionIsFlagged() throws {
        let baseline = try #require(Self.baseline)
        let before = try Self.save(baseline, "before.json")
        let after = try Self.save(Self.slower(baseline, by: 60_000_000), "after.json")
        let junit = temporaryPath("diff.xml")
        defer { [before, after, junit].forEach { try? FileManager.default.removeItem(atPath: $0) } }
        let result = try LagmonProcess.run(
            ["diff", before, after, "--max-regression", "stall.max:+10%", "--min-change", "5ms", "--junit", junit],
            json: false)
        #expect(result.status == 99, "\(result.stderr)")
        #expect(result.stderr.contains("FAIL stall.max: "), "\(result.stderr)")
        #expect(result.lagmonLines.last?.hasPrefix("lagmon: FAIL stall.max ") == true)
        #expect(result.lagmonLines.last?.contains("(+60ms, +") == true)
        let file = try JUnitFile.read(junit)
        #expect(file.failures.count == 1)
        #expect(file.names.contains("stall.max"))
    }

    @Test func changeBelowMinChangeIsIgnored() throws {
        let baseline = try #require(Self.baseline)
        let before = try Self.save(baseline, "before.json")
        // 1 ms more per stall: 3 ms more in total over the three stalls, all under the 5 ms floor.
        let after = try Self.save(Self.slower(baseline, by: 1_000_000), "after.json")
        defer { [before, after].forEach { try? FileManager.default.removeItem(atPath: $0) } }
        let result = try LagmonProcess.run(
            ["diff", before, after, "--max-regression", "*:+0%", "--min-change", "5ms"], json: false)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("below the noise floor"))
        #expect(result.lagmonLines.last?.hasPrefix("lagmon: PASS") == true)
        // Without the noise floor the same 1 ms is a regression at +0 %.
        let strict = try LagmonProcess.run(
            ["diff", before, after, "--max-regression", "stall.max:+0%", "--min-change", "1ns"], json: false)
        #expect(strict.status == 99)
    }

    @Test func naiveAfterAsyncIsANewStall() throws {
        let baselinePath = temporaryPath("async.json")
        let currentPath = temporaryPath("naive.json")
        defer { [baselinePath, currentPath].forEach { try? FileManager.default.removeItem(atPath: $0) } }
        for (path, scenario) in [(baselinePath, "async"), (currentPath, "naive")] {
            let run = try LagmonProcess.run(
                ["run", "--json", path, "--quiet", "--", Binaries.demo, "--scenario", scenario, "--rows", "3"],
                json: false)
            #expect(run.status == 0)
        }
        let result = try LagmonProcess.run(["diff", baselinePath, currentPath], json: false)
        #expect(result.status == 99)
        #expect(result.stderr.contains("FAIL stall.count: 0 → 3 (+3)"), "\(result.stderr)")
        #expect(result.stderr.contains("new stall: lagmon-demo`"), "\(result.stderr)")
        // The naive list reads each row's image on the main thread (StrictMode counts the opens);
        // the async one reads them off it: new blocking calls, shown, not failing.
        let naive = try JSONReportWriter.decode(Array(try Data(contentsOf: URL(fileURLWithPath: currentPath))))
        let opens = (naive.blockingCalls ?? []).filter { $0.call == "open" }.reduce(0) { $0 + $1.count }
        #expect(opens == 3, "\(naive.blockingCalls ?? [])")
        #expect(result.stderr.contains("info strict.count: "), "\(result.stderr)")
        #expect(
            result.lagmonLines.contains { $0.contains("info new blocking call: open at ") && $0.contains("3 calls") },
            "\(result.stderr)")
        let same = try LagmonProcess.run(["diff", currentPath, currentPath], json: false)
        #expect(same.status == 0)
    }
}
