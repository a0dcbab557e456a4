import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// A program with more threads than lagmon reads per pass (4096): the JSON report and the
/// terminal summary say the per-thread table left threads out, and how many the program had.
@Suite(.serialized)
struct ThreadCapTests {
    @Test func fiveThousandThreadsStateTheCap() throws {
        let result = try LagmonProcess.run([
            "run", "--", Binaries.demo, "--scenario", "threads", "--threads", "5000", "--seconds", "3",
        ])
        #expect(result.status == 0, "\(result.stderr.suffix(600))")
        let report = try #require(result.report)
        let cap = try #require(report.threadCap, "no threadCap with 5001 threads")
        #expect(cap.limit == 4096)
        // The 5000 sleepers and the main thread (and whatever threads the runtime started).
        #expect(cap.threadsSeen >= 5001, "\(cap)")
        // Each pass reads the first 4096 by thread id; threads some pass read stay in the table.
        #expect(report.threads.count < cap.threadsSeen, "\(report.threads.count) threads in the table")
        #expect(
            result.stderr.contains("busiest threads (3 of \(cap.threadsSeen); at most 4096 read):"),
            "\(result.stderr.suffix(1200))")
        #expect(report.diagnostics.contains { $0.code == "threads-capped" && $0.severity == .warning })
        #expect(result.stderr.contains("warning: the program had up to \(cap.threadsSeen) threads"))
    }

    /// Below the cap nothing is said: the key is absent, the summary counts the threads read.
    @Test func fewThreadsSayNothing() throws {
        let result = try LagmonProcess.run([
            "run", "--", Binaries.demo, "--scenario", "threads", "--threads", "20", "--seconds", "1",
        ])
        #expect(result.status == 0)
        let json = try #require(result.reportJSON)
        #expect(json["threadCap"] == nil)
        #expect(try #require(result.report).diagnostics.allSatisfy { $0.code != "threads-capped" })
        #expect(!result.stderr.contains("at most"), "\(result.stderr.suffix(600))")
    }
}
