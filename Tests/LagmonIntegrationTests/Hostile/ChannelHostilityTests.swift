import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// A target that writes into lagmon's channel what no probe would: a slot naming another
/// process (which lagmon must never watch or trace), or random bytes (which must not crash
/// lagmon, lose the report or the target's status). The hostile fixture also runs one honest
/// loop that stalls for 250 ms, so each test also sees lagmon working.
@Suite(.serialized)
struct ChannelHostilityTests {
    static let hostileFixture = Binaries.directory + "/lagmon-hostile-fixture"
    static let asNobody = ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"]

    @Test(arguments: [false, true])
    func aSlotNamingAnotherProcessIsNeverWatchedOrTraced(targetAsNobody: Bool) throws {
        let victim = try Victim()
        let command = (targetAsNobody ? Self.asNobody : []) + [Self.hostileFixture, "forge", String(victim.pid)]
        let result = try LagmonProcess.run(["run", "--"] + command + ["--exit-status", "5"])
        let traced = try victim.finish()
        #expect(result.status == 5, "the target's status passes through")
        #expect(result.stdout.contains("attacked pid="), "the forged slot was published")
        let report = try #require(result.report)
        #expect(traced == 0, "the victim was traced in \(traced) of its checks")
        #expect(!report.loops.contains { $0.pid == victim.pid || $0.thread.tid == victim.pid })
        #expect(!report.stalls.contains { $0.pid == victim.pid || $0.thread.tid == victim.pid })
        #expect(report.processes?.contains { $0.pid == victim.pid } != true)
        let warning = try #require(report.diagnostics.first { $0.code == "channel-invalid" })
        #expect(warning.message.contains("1 entry naming a process outside the session"), "\(warning.message)")
        Self.expectHonestStall(report)
    }

    @Test(arguments: [1, 2, 3, 4, 5])
    func randomChannelDataNeverCrashesLagmonNorLosesTheReport(seed: Int) throws {
        let result = try LagmonProcess.run([
            "run", "--", Self.hostileFixture, "random", String(seed), "--exit-status", "5",
        ])
        #expect(result.status == 5, "the target's status passes through: \(result.stderr.suffix(800))")
        #expect(result.stdout.contains("done"))
        let report = try #require(result.report, "the report is written")
        #expect(report.target.exitStatus == 5)
        #expect(report.diagnostics.contains { $0.code == "channel-invalid" })
        Self.expectHonestStall(report)
        // StrictMode's tables were random too: at most a table's worth per slot, none impossible.
        let calls = try #require(report.blockingCalls)
        #expect(calls.count <= 3 * 32)
        #expect(calls.allSatisfy { $0.count > 0 && $0.maxNs <= $0.totalNs }, "\(calls)")
    }

    @Test func randomChannelDataFromATargetRunningAsAnotherUser() throws {
        let result = try LagmonProcess.run(
            ["run", "--"] + Self.asNobody + [Self.hostileFixture, "random", "7", "--exit-status", "5"])
        #expect(result.status == 5, "\(result.stderr.suffix(800))")
        let report = try #require(result.report)
        #expect(report.diagnostics.contains { $0.code == "channel-invalid" })
        Self.expectHonestStall(report)
    }

    /// The fixture's own loop stalled, 250 ms, in its own code (random slots that name the same
    /// thread may add stalls of their own; on a loaded machine the deepest common frame may be
    /// the spin's caller).
    static func expectHonestStall(_ report: Report) {
        let honest = report.stalls.contains {
            $0.pid == report.target.pid && $0.culprit?.module == "lagmon-hostile-fixture"
                && $0.durationNs >= 248_000_000 && !$0.ongoingAtExit
        }
        #expect(honest, "stalls: \(report.stalls.map { ($0.pid, $0.durationNs, $0.culprit?.symbol) })")
    }
}

/// An unrelated process (not started by lagmon) that counts how often it finds itself traced.
final class Victim {
    let pid: Int32
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()

    init() throws {
        process.executableURL = URL(fileURLWithPath: ChannelHostilityTests.hostileFixture)
        process.arguments = ["victim"]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var text = ""
        while !text.contains("\n") {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        pid = Int32(text.split(separator: "=").last?.split(separator: "\n").first ?? "") ?? -1
    }

    /// Stops the victim; returns in how many of its checks it was traced.
    func finish() throws -> Int {
        try input.fileHandleForWriting.write(contentsOf: Data("stop\n".utf8))
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("traced checks=") })
        return Int(line.dropFirst("traced checks=".count).split(separator: " ").first ?? "") ?? -1
    }
}
