import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// `--follow-children` on a program that forks many short children, each of which stalls once
/// (asleep in its loop, 120 ms) and exits in its own order, while the parent only waits for
/// them: every child that stalled must be let go and reaped by its parent as without lagmon,
/// and honest children must not read as a hostile channel.
@Suite(.serialized)
struct FollowedChildrenTests {
    @Test(arguments: [20, 200])
    func everyFollowedChildIsReleasedAndReapedByItsParent(children: Int) throws {
        let running = try LagmonProcess([
            "run", "--follow-children", "--", Binaries.loopFixture, "fork-many", String(children),
        ])
        // Alone it takes well under a second; the bound only catches a hang (children left
        // traced zombies, the parent waiting for ever).
        let result = try #require(try running.finish(withinSeconds: 240), "lagmon or its target hung")
        #expect(result.status == 0, "\(result.stderr.suffix(800))")
        #expect(result.stdout.contains("reaped \(children) of \(children)"))
        let report = try #require(result.report)
        let invalid = report.diagnostics.first { $0.code == "channel-invalid" }
        #expect(invalid == nil, "\(invalid?.message ?? "")")
        #expect(report.stalls.allSatisfy { $0.pid != report.target.pid }, "only the children stall")
        #expect(!report.stalls.isEmpty)
    }
}
