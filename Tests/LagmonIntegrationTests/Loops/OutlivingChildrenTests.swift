import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// Descendants that outlive the program lagmon started: a launcher that leaves a server running
/// (`sh -c 'srv & exit 0'`) and a daemon's double fork. The server stalls only after its launcher
/// exited; with `--follow-children` lagmon watches it until it ends, and without it names it.
@Suite(.serialized)
struct OutlivingChildrenTests {
    static let ms: UInt64 = 1_000_000

    /// The command and the exit status of its launcher.
    static func launcher(_ kind: String) -> (command: [String], status: Int32) {
        switch kind {
        case "sh":
            let quoted = "'" + Binaries.loopFixture.replacingOccurrences(of: "'", with: "'\\''") + "'"
            return (["/bin/sh", "-c", "\(quoted) outlive-loop --launcher $$ & exit 0"], 0)
        default: return ([Binaries.loopFixture, "daemon"], 7)
        }
    }

    @Test(arguments: ["sh", "daemon"])
    func followingChildrenWatchesALoopThatOutlivedItsLauncherUntilItEnds(kind: String) throws {
        let (command, status) = Self.launcher(kind)
        let result = try LagmonProcess.run(["run", "--follow-children", "--"] + command)
        #expect(result.status == status, "lagmon exits with the launcher's status: \(result.lagmonLines.suffix(3))")
        #expect(result.stdout.contains("done"), "the server ran to its end before lagmon did")
        let report = try #require(result.report)
        let server = try #require(Self.pid(after: "orphaned pid=", in: result.stdout))
        let invalid = report.diagnostics.first { $0.code == "channel-invalid" }
        #expect(invalid == nil, "\(invalid?.message ?? "")")
        let stall = try #require(report.stalls.first { $0.pid == server }, "\(report.stalls.map(\.pid))")
        #expect(report.stalls.count == 1)
        #expect(
            stall.culprit?.symbol == "spin_for_250ms_in_orphan_loop",
            "\(stall.samples) samples, seen live: \(stall.seenLive), \(result.lagmonLines.suffix(12))")
        let busy = try #require(Self.busyNs(result.stdout))
        let error = Double(stall.durationNs) / Double(busy) - 1
        #expect(abs(error) <= 0.05, "stall of \(stall.durationNs) ns, busy for \(busy) ns")
        let loop = try #require(report.loops.first { $0.pid == server })
        #expect(loop.iterations >= 10, "the server's loop ran on after its launcher: \(loop.iterations)")
        #expect(report.diagnostics.allSatisfy { $0.code != "left-running" })
    }

    @Test func withoutFollowingChildrenALauncherThatLeavesALoopRunningSaysSo() throws {
        let (command, status) = Self.launcher("daemon")
        let result = try LagmonProcess.run(["run", "--"] + command)
        #expect(result.status == status)
        let report = try #require(result.report)
        let server = try #require(Self.pid(after: "daemon pid=", in: result.stdout))
        let message = try #require(report.diagnostics.first { $0.code == "left-running" }?.message)
        #expect(message.contains("\(server) (lagmon-loop-fix)"), "\(message)")
        #expect(message.contains("--follow-children"))
        #expect(report.stalls.isEmpty)
    }

    /// The pid in the first line containing `marker`.
    static func pid(after marker: String, in stdout: String) -> Int32? {
        stdout.split(separator: "\n").first { $0.hasPrefix(marker) }.flatMap { Int32($0.dropFirst(marker.count)) }
    }

    /// The fixture's busy window (`busy <woke> <waited>`), in ns.
    static func busyNs(_ stdout: String) -> UInt64? {
        guard let line = stdout.split(separator: "\n").first(where: { $0.hasPrefix("busy ") }) else { return nil }
        let fields = line.split(separator: " ").compactMap { UInt64($0) }
        guard fields.count == 2, fields[1] > fields[0] else { return nil }
        return fields[1] - fields[0]
    }
}
