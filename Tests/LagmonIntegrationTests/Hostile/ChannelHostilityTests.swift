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

    /// Following children, a slot naming one of the target's own threads as a process: a
    /// thread's id opens /proc/<tid> too, whose parent is the target's (lagmon, the subreaper),
    /// so it once passed for a child of the target and was watched as a process of its own (the
    /// live fuzzer found it with a random small number). Only a thread group's id names a process.
    @Test func followingChildrenAThreadIdNamesNoProcess() throws {
        let result = try LagmonProcess.run([
            "run", "--follow-children", "--", Self.hostileFixture, "forge-thread", "--exit-status", "5",
        ])
        #expect(result.status == 5, "the target's status passes through: \(result.stderr.suffix(800))")
        let line = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("forged tid=") })
        let tid = try #require(Int32(line.dropFirst("forged tid=".count)))
        let report = try #require(result.report)
        #expect(!report.loops.contains { $0.pid == tid }, "\(report.loops.map(\.pid))")
        #expect(!report.stalls.contains { $0.pid == tid }, "\(report.stalls.map(\.pid))")
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

    /// The live fuzzer (scripts/hostile-soak runs it for as long as one likes): four threads of
    /// the target write random and adversarial values everywhere in the channel, the futex words
    /// lagmon sleeps on included, and name a decoy process, pid 1 and lagmon in forged slots and
    /// process entries. lagmon must end when the target does, with its status and a valid
    /// report, and never trace anything but the target.
    @Test(arguments: [1, 2, 3, 4])
    func aFuzzedChannelNeitherStopsLagmonNorLeadsItElsewhere(seed: Int) throws {
        let decoy = try Victim()
        let running = try LagmonProcess([
            "run", "--", Self.hostileFixture, "fuzz", String(seed), "--decoy", String(decoy.pid), "--exit-status", "5",
        ])
        let finished = try running.finish(withinSeconds: 120)
        let traced = try decoy.finish()
        let result = try #require(finished, "lagmon did not end with its target")
        #expect(result.status == 5, "the target's status passes through: \(result.stderr.suffix(800))")
        #expect(result.stdout.contains("truncate refused"), "the channel's size is sealed")
        #expect(result.stdout.contains("done"))
        #expect(traced == 0, "the decoy was traced in \(traced) of its checks")
        let report = try #require(result.report, "the report is written")
        #expect(report.target.exitStatus == 5)
        let target = report.target.pid
        #expect(report.loops.allSatisfy { $0.pid == target }, "\(report.loops.map(\.pid))")
        #expect(report.stalls.allSatisfy { $0.pid == target }, "\(report.stalls.map(\.pid))")
        #expect(report.processes?.allSatisfy { $0.pid == target } != false)
    }

    /// The target shrinks the channel through /proc (lagmon's reads of the process table died
    /// of SIGBUS): the memfd is sealed at its size, so the truncation fails.
    @Test func aTargetCannotResizeTheChannel() throws {
        let result = try LagmonProcess.run([
            "run", "--", "/bin/sh", "-c",
            "truncate -s 4096 /proc/self/fd/$LAGMON_CHANNEL_FD 2>/dev/null; echo truncate=$?; sleep 0.6",
        ])
        #expect(result.status == 0, "\(result.stderr.suffix(800))")
        #expect(result.stdout.contains("truncate=1"), "\(result.stdout)")
        #expect(result.report != nil)
    }

    /// A target running as nobody execs a setuid-root program (a copy of the hostile fixture)
    /// that forges a stalled slot naming itself and spins (a CPU alert too): root lagmon could
    /// trace it, but its user could not, so lagmon does not, and says why.
    @Test(.enabled(if: geteuid() == 0, "building a setuid-root program needs root"))
    func aProgramThatGainedPrivilegesByExecIsNeverSampled() throws {
        let directory = NSTemporaryDirectory() + "lagmon-suid-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let program = directory + "/lagmon-suid-fixture"
        try FileManager.default.copyItem(atPath: Self.hostileFixture, toPath: program)
        #expect(chown(program, 0, 0) == 0 && chmod(program, 0o4755) == 0 && chmod(directory, 0o755) == 0)
        let result = try LagmonProcess.run(
            ["run", "--cpu-alert", "50", "--"] + Self.asNobody + [program, "forge-self"])
        #expect(result.status == 0, "\(result.stderr.suffix(800))")
        let line = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("privileged ") })
        #expect(line.hasPrefix("privileged euid=0 traced checks=0 of "), "lagmon traced it: \(line)")
        let report = try #require(result.report)
        let refusal = try #require(report.diagnostics.first { $0.code == "privileged-process" })
        // AT_SECURE names the exec; where lagmon may not read an undumpable process's auxv (root
        // without CAP_SYS_PTRACE), its ids still give it away.
        #expect(refusal.message.hasPrefix("pid "), "\(refusal.message)")
        // Its path, or only its name (comm) where its exe and argv are unreadable too.
        let named = ["(\(program))", "(lagmon-suid-fix)"].first { refusal.message.contains($0) }
        #expect(named != nil, "\(refusal.message)")
        #expect(
            refusal.message.contains(") gained privileges by exec")
                || refusal.message.contains(") runs with mixed user ids (65534 0 0 0)"),
            "\(refusal.message)")
        #expect(report.stalls.allSatisfy { $0.samples == 0 }, "no stack of it")
        #expect(report.threads.allSatisfy { $0.alerts.allSatisfy { $0.frames.isEmpty } }, "no alert stack")
        #expect(!report.diagnostics.contains { $0.message.contains("no event loop found") })
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
