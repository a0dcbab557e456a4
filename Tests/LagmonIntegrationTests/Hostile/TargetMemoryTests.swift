import Foundation
import LagmonCore
import Testing

/// A target whose stack pages lie behind a userfaultfd that nobody answers (the hostile
/// fixture's `uffd-*` modes): any read of them from outside waits for ever, and no signal ends
/// the wait. lagmon's reads of them — the stack copy while the thread is stopped (`uffd-copy`)
/// or the unwind after it resumed (`uffd-unwind`) — must be abandoned: the session ends, the
/// report is written and says so, the target is let go (it checks its own TracerPid after the
/// stall and logs when it found 0) and exits with its own status. Before, the copy kept the
/// thread stopped for ever and lagmon never ended.
@Suite(.serialized)
struct TargetMemoryTests {
    @Test(arguments: ["uffd-copy", "uffd-unwind"])
    func memoryThatNeverArrivesCannotHangTheSessionNorKeepTheTargetTraced(mode: String) throws {
        let running = try LagmonProcess([
            "run", "--", ChannelHostilityTests.hostileFixture, mode, "--exit-status", "5",
        ])
        // A bound for a hang, not a synchronisation delay: the run takes about a second.
        let result = try #require(try running.finish(withinSeconds: 240), "lagmon hung (killed after 240 s)")
        if result.status == 77,
            let reason = result.stdout.split(separator: "\n").first(where: {
                $0.hasPrefix("uffd unavailable")
            })
        {
            try Test.cancel("\(reason)")
        }
        #expect(result.status == 5, "the target's status passes through: \(result.stdout) \(result.stderr.suffix(800))")
        #expect(result.stdout.contains("uffd stack sp="), "the stack was put behind the userfaultfd: \(result.stdout)")
        #expect(result.stdout.contains("untraced after"), "the target was let go after its stall: \(result.stdout)")
        let report = try #require(result.report, "the report is written")
        #expect(report.target.exitStatus == 5)
        let stall = try #require(
            report.stalls.first { $0.pid == report.target.pid && $0.durationNs >= 390_000_000 },
            "stalls: \(report.stalls.map { ($0.durationNs, $0.diagnosis.text) })")
        #expect(!stall.ongoingAtExit)
        #expect(
            stall.diagnosis.text.hasSuffix(StallDiagnoser.memoryUnreadableNote),
            "diagnosis: \(stall.diagnosis.text)")
        #expect((report.sampling.memoryUnreadableSamples ?? 0) >= 1)
    }
}
