import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// Programs with more loops than the old 64-slot channel held: every loop is watched up to the
/// channel's capacity (256, shared by every process of a session), and the loops past it are
/// counted and named in a warning. The fixture's loops each tick a known number of times before
/// the program ends, so every loop has qualified and claimed (or been refused) a slot by then,
/// whatever the machine's load.
@Suite(.serialized)
struct ManyLoopsTests {
    static let ms: UInt64 = 1_000_000

    @Test func aStallOnTheHundredthOfAHundredLoopsIsFound() throws {
        let result = try LagmonProcess.run([
            "run", "--loops", "all", "--", Binaries.loopFixture, "loops", "100", "--ticks-each", "6", "--stall-last",
        ])
        #expect(result.status == 0)
        let report = try #require(result.report)
        let tid = try #require(Self.stallingTid(result.stdout), "\(result.stdout)")
        #expect(report.loops.count == 100, "\(report.loops.count) loops watched")
        #expect(Set(report.loops.map(\.thread.name)) == Set((0..<100).map { "loop-\($0)" }))
        let last = try #require(report.loops.first { $0.thread.tid == tid })
        #expect(last.thread.name == "loop-99")
        #expect(last.stallCount == 1)
        let stall = try #require(report.stalls.first { $0.thread.tid == tid })
        WaitCallLoopTests.expectInjected(stall)
        #expect(report.stalls.filter { $0.thread.tid != tid }.isEmpty, "only loop-99 stalls")
        #expect(!report.diagnostics.contains { $0.code == "slots-exhausted" })
    }

    @Test func loopsPastTheChannelsCapacityAreCountedAndWarnedAbout() throws {
        // 300 loops and no other: 256 are watched, 44 found every slot taken.
        let result = try LagmonProcess.run([
            "run", "--loops", "all", "--", Binaries.loopFixture, "loops", "300", "--ticks-each", "4",
        ])
        #expect(result.status == 0)
        let report = try #require(result.report)
        #expect(report.loops.count == 256, "\(report.loops.count) loops watched")
        let warning = try #require(report.diagnostics.first { $0.code == "slots-exhausted" })
        #expect(warning.severity == .warning)
        #expect(
            warning.message == "the target has more loops than the channel can hold (256); 44 loops were not observed")
    }

    /// The tid in the fixture's `stalling loop-99 tid=<tid>` line.
    static func stallingTid(_ stdout: String) -> Int32? {
        let line = stdout.split(separator: "\n").first { $0.hasPrefix("stalling loop-99 tid=") }
        return line.flatMap { Int32($0.split(separator: "=").last ?? "") }
    }
}
