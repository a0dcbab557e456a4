import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// A program that makes a PID namespace of its own under `lagmon run --follow-children`
/// (`unshare --pid --fork`, as sandboxes and container runtimes do): its probe writes the
/// namespace's numbers (the loop's process is pid 1 there), which lagmon turns into its own, so
/// the loop is watched, its stall found and sampled, and nothing reads as a hostile channel.
/// Before, the loop's entries were refused as naming processes outside the session
/// (`channel-invalid`) and the stall went unseen.
@Suite(.serialized)
struct PidNamespaceTests {
    static let unshare = "/usr/bin/unshare"

    /// Whether this machine lets the tests make a PID namespace (CAP_SYS_ADMIN, or user
    /// namespaces): `unshare --pid --fork --mount-proc true` exits 0.
    static let canUnshare: Bool = {
        guard FileManager.default.isExecutableFile(atPath: unshare) else { return false }
        let trial = Process()
        trial.executableURL = URL(fileURLWithPath: unshare)
        trial.arguments = ["--pid", "--fork", "--mount-proc", "/bin/true"]
        trial.standardError = FileHandle.nullDevice
        guard (try? trial.run()) != nil else { return false }
        trial.waitUntilExit()
        return trial.terminationStatus == 0
    }()

    /// With `/proc` mounted for the new namespace (`--mount-proc`, as containers have) and
    /// without (the program's /proc is still lagmon's; its pids are the namespace's all the same).
    @Test(
        .enabled(if: canUnshare, "unshare --pid --fork fails on this machine (it needs CAP_SYS_ADMIN)"),
        arguments: [true, false])
    func aLoopInAPidNamespaceOfTheProgramsOwnIsWatched(mountProc: Bool) throws {
        let command =
            [Self.unshare, "--pid", "--fork"] + (mountProc ? ["--mount-proc"] : []) + [Binaries.loopFixture, "stall"]
        let result = try LagmonProcess.run(["run", "--follow-children", "--"] + command)
        #expect(result.status == 0, "\(result.lagmonLines.suffix(5))")
        #expect(result.stdout.contains("stalling pid=1"), "the loop is its namespace's first process: \(result.stdout)")
        let report = try #require(result.report)
        let invalid = report.diagnostics.first { $0.code == "channel-invalid" }
        #expect(invalid == nil, "\(invalid?.message ?? "")")
        let stall = try #require(report.stalls.first, "no stall: \(result.lagmonLines.suffix(8))")
        #expect(report.stalls.count == 1)
        #expect(stall.pid != 1 && stall.pid != report.target.pid, "lagmon's number for the process: \(stall.pid)")
        #expect(stall.thread.tid == stall.pid, "the loop runs on its process's main thread")
        #expect(
            stall.culprit?.symbol == "spin_for_250ms_in_c_loop",
            "\(stall.samples) samples, seen live: \(stall.seenLive), \(result.lagmonLines.suffix(12))")
        let busy = try #require(OutlivingChildrenTests.busyNs(result.stdout))
        let error = Double(stall.durationNs) / Double(busy) - 1
        #expect(abs(error) <= 0.05, "stall of \(stall.durationNs) ns, busy for \(busy) ns")
        let loop = try #require(report.loops.first { $0.pid == stall.pid }, "\(report.loops.map(\.pid))")
        #expect(loop.thread.tid == stall.pid)
    }
}
