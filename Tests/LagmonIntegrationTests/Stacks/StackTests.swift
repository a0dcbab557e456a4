import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// Stacks, culprits, diagnoses and per-thread CPU from `lagmon run` on the demo.
@Suite(.serialized)
struct StackTests {
    /// Runs lagmon (and so its target) at nice -15, ahead of whatever else loads the machine, for
    /// a truth nothing in lagmon controls: a thread that burns a core must get one to be seen
    /// doing it (beside `make test-loaded`'s spinners and other builds the demo's burner got 10 %
    /// of a core). lagmon runs as root in these tests, so it may.
    static let ahead = ["/usr/bin/nice", "-n", "-15"]

    @Test func everyNaiveStallBlamesDecodeImage() throws {
        // Ahead of the machine's other work: five samples a stall need the demo and the sampler
        // on a CPU (at load 15-20 one stall got none).
        let result = try LagmonProcess.run(["run", "--", Binaries.demo, "--scenario", "naive"], wrapper: Self.ahead)
        let report = try #require(result.report)
        #expect(report.stalls.count == 6)
        for stall in report.stalls {
            #expect(stall.samples >= 5, "stall \(stall.id) has \(stall.samples) samples")
            #expect(stall.culprit?.symbol == "static ImageDecoder.decodeImage(_:row:budgetNs:)", "stall \(stall.id)")
            #expect(stall.culprit?.module == "lagmon-demo")
            #expect(stall.diagnosis.kind == .cpu || stall.diagnosis.kind == .runqueue)
            #expect(stall.diagnosis.text.contains("decodeImage") || stall.diagnosis.kind == .runqueue)
            let top = try #require(stall.stacks.first)
            #expect(
                top.frames.first?.symbol?.contains("start") == true, "root first: \(top.frames.first?.symbol ?? "?")")
        }
        // Six stalls, one piece of code: one fingerprint.
        #expect(report.fingerprints.count == 1)
        #expect(report.fingerprints.first?.count == 6)
        #expect(report.fingerprints.first?.frames.first?.contains("decodeImage") == true)
        #expect(report.sampling.samples >= 30)
        #expect(report.sampling.completeness >= 0.9)
        #expect(report.sampling.pauseNsP50 > 0)
        #expect(report.sampling.unavailable == nil)
        // The summary names decodeImage in each stall's diagnosis line: as the diagnosis (CPU-bound
        // in …), or beside "waiting for a CPU" as the culprit when a loaded machine kept the demo
        // off the CPU (the per-stall diagnoses above allow either).
        #expect(
            result.lagmonLines.contains {
                $0.contains("CPU-bound in static ImageDecoder.decodeImage")
                    || ($0.contains("waiting for a CPU") && $0.contains("culprit static ImageDecoder.decodeImage"))
            })
    }

    @Test func blockedReadNamesTheSyscallAndThePipe() throws {
        let result = try LagmonProcess.run(["run", "--", Binaries.demo, "--scenario", "io"])
        let stall = try #require(result.report?.stalls.first)
        #expect(stall.diagnosis.kind == .syscall)
        #expect(stall.diagnosis.text.hasPrefix("blocked "))
        #expect(stall.diagnosis.text.contains("in read(fd "))
        #expect(stall.diagnosis.text.contains("→ pipe)"))
        #expect(stall.culprit?.symbol == "SlowPipeRead.readThumbnail(from:)")
    }

    @Test func lockWaitIsDiagnosedAsALockWithItsHolder() throws {
        let result = try LagmonProcess.run(["run", "--", Binaries.demo, "--scenario", "lock"])
        let report = try #require(result.report)
        let stall = try #require(report.stalls.first)
        #expect(stall.diagnosis.kind == .lock)
        #expect(stall.culprit?.symbol == "LockContention.waitForThumbnailLock()")
        // NSLock is a glibc mutex here; the worker holding it sleeps in a loop in its closure.
        let lock = try #require(stall.lock)
        #expect(lock.kind == "mutex")
        let holder = try #require(lock.holder)
        #expect(holder.name == "cache-writer")
        // The CPU sampler's list, when its 4 Hz passes caught the short-lived writer (at load 15-20
        // one did not), names the same thread.
        if let writer = report.threads.first(where: { $0.name == "cache-writer" }) { #expect(holder.tid == writer.tid) }
        #expect(holder.culprit?.symbol == "closure #1 in LockContention.run(then:)")
        #expect(
            stall.diagnosis.text.hasPrefix("waiting ")
                && stall.diagnosis.text.contains(
                    "for a mutex held by thread \(holder.tid) \"cache-writer\" in closure #1 in LockContention.run(then:)"
                ),
            "\(stall.diagnosis.text)")
    }

    @Test func aThreadBurningCPURaisesAnAlertWithItsStack() throws {
        // Alert level 25: the burner takes a whole core when it has one, but CI machines are shared
        // (at load 9-10 beside other builds, at nice -15, it got a peak of 36-45 % of a core).
        let result = try LagmonProcess.run(
            ["run", "--cpu-alert", "25", "--", Binaries.demo, "--scenario", "spin", "--seconds", "1.5"],
            wrapper: Self.ahead)
        let report = try #require(result.report)
        let burner = try #require(report.threads.first { $0.name == "cpu-burner" })
        #expect(burner.cpu.maxPct >= 25)
        // One alert when it has its core; a share that dips below the level and back makes two.
        #expect(burner.alerts.count >= 1)
        let alert = try #require(burner.alerts.first)
        #expect(alert.cpuPct >= 25)
        #expect(alert.frames.contains { $0.symbol == "spinHashRound(_:)" }, "\(alert.frames.map(\.symbol))")
        #expect(report.stalls.isEmpty)
        let main = try #require(report.threads.first { $0.tid == report.target.pid })
        #expect(main.alerts.isEmpty)
    }

    @Test func aSleepingTargetHasNoStacksNoAlertsNoStalls() throws {
        let result = try LagmonProcess.run(["run", "--", Binaries.demo, "--scenario", "idle", "--seconds", "1"])
        let report = try #require(result.report)
        #expect(report.stalls.isEmpty)
        #expect(report.sampling.samples == 0)
        #expect(report.threads.allSatisfy { $0.alerts.isEmpty })
        #expect(report.threads.contains { $0.tid == report.target.pid })
    }

    @Test func ptraceRefusedKeepsDetectingStallsAndWarnsOnce() throws {
        // Without CAP_SYS_PTRACE, a non-dumpable target cannot be traced (EPERM).
        let result = try LagmonProcess.run(
            ["run", "--", Binaries.demo, "--scenario", "naive", "--rows", "2", "--not-dumpable"],
            wrapper: ["/usr/bin/setpriv", "--bounding-set=-sys_ptrace", "--inh-caps=-sys_ptrace", "--"])
        #expect(result.status == 0)
        let report = try #require(result.report)
        #expect(report.stalls.count == 2)
        #expect(report.sampling.samples == 0)
        let reason = try #require(report.sampling.unavailable)
        #expect(reason.contains("EPERM") && reason.contains("CAP_SYS_PTRACE"))
        #expect(report.diagnostics.filter { $0.code == "stacks-unavailable" }.count == 1)
        #expect(result.lagmonLines.filter { $0.contains("ptrace was refused") }.count == 1)
    }

    @Test func ctrlCWhileSamplingLeavesTheTargetNeitherStoppedNorTraced() throws {
        let running = try LagmonProcess(["run", "--", Binaries.demo, "--scenario", "interruptible"])
        let pidLine = try #require(running.waitForLine(containing: "pid "))
        let pid = try #require(Int32(pidLine.split(separator: " ")[2]))
        // Past the threshold: the sampler stops the thread every few milliseconds (each sample
        // seizes it and detaches), so the signal is likely to arrive during a sample's stop.
        _ = try #require(running.waitForLine(containing: "stalled 200ms"))
        kill(running.pid, SIGINT)
        // The signal reached the target's handler (the sampler let it through), the stall ended.
        // (Not "stalling until interrupted": a second SIGINT sent before lagmon took the first
        // would merge with it, and the target would wait for it forever.)
        _ = try #require(running.waitForLine(containing: "lagmon-demo: interrupted"))
        #expect(poll(seconds: 10) { Self.status(of: pid)?.contains("TracerPid:\t0\n") == true })
        let status = try #require(Self.status(of: pid))
        #expect(!status.contains("State:\tt"))
        #expect(!status.contains("State:\tT"))
        kill(running.pid, SIGINT)
        let result = try running.finish()
        #expect(result.status == 0)
        #expect(result.report?.stalls.count == 1)
        #expect((result.report?.stalls.first?.samples ?? 0) > 0)
    }

    static func status(of pid: Int32) -> String? {
        try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
    }
}
