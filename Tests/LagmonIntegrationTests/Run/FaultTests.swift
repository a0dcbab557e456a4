import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// Crashes, kills, Ctrl-C: the report is always written and the status passed through.
@Suite(.serialized)
struct FaultTests {
    @Test func crashInTheMiddleOfAStallIsReportedAsOngoing() throws {
        // Without the Swift runtime's backtracer (which would run, and stretch the stall, before
        // the process dies): the probe's own crash record then ends the stall on the target's clock.
        let result = try LagmonProcess.run(
            ["run", "--", Binaries.demo, "--scenario", "crash"], environment: Self.noSwiftBacktracer)
        #expect(result.status == 128 + SIGSEGV)
        let report = try #require(result.report)
        #expect(report.target.signal == SIGSEGV)
        #expect(report.target.signalName == "SIGSEGV")
        #expect(report.target.exitStatus == 139)
        let stall = try #require(report.stalls.last)
        #expect(stall.ongoingAtExit)
        // From the loop's wake-up to the crash: what the demo spent before it crashed, plus the
        // little between the wake-up and the scenario's first line (lagmon's notice of the death
        // would add its own lateness: 1.34 s with lagmon frozen across the crash).
        let line = try #require(result.stdout.split(separator: "\n").first { $0.contains("crashing ") })
        let words = line.split(separator: " ")
        let index = try #require(words.firstIndex(of: "crashing"))
        let spentNs = try #require(UInt64(words[words.index(after: index)]), "\(line)")
        #expect(spentNs >= 200_000_000)
        #expect(stall.durationNs >= spentNs, "stall \(stall.durationNs) ns, demo \(spentNs) ns")
        #expect(stall.durationNs < spentNs + 150_000_000, "stall \(stall.durationNs) ns, demo \(spentNs) ns")
    }

    @Test func sigkillDuringAStallStillWritesTheReport() throws {
        let running = try LagmonProcess(["run", "--", Binaries.demo, "--scenario", "hang"])
        let pidLine = try #require(running.waitForLine(containing: "pid "))
        let pid = try #require(Int32(pidLine.split(separator: " ")[2]))
        _ = try #require(running.waitForLine(containing: "stalled 200ms"))
        kill(pid, SIGKILL)
        let result = try running.finish()
        #expect(result.status == 128 + SIGKILL)
        let report = try #require(result.report)
        #expect(report.target.signalName == "SIGKILL")
        let stall = try #require(report.stalls.last)
        #expect(stall.ongoingAtExit)
        #expect(stall.durationNs >= 200_000_000)
    }

    /// lagmon frozen (SIGSTOP) while the target exits from inside a busy loop iteration, and
    /// continued a second later: the target's own exit record ends the session, so no stall is
    /// invented and the wall time is the target's, as the workload logs it.
    @Test func lagmonStoppedAcrossTheTargetsExitAddsNoStallAndNoTime() throws {
        let running = try LagmonProcess([
            "run", "--threshold", "100ms", "--", Binaries.loopFixture, "stall", "--wait-for-input", "--stalls", "0",
            "--ticks-after", "0", "--exit-busy",
        ])
        let waiting = try #require(running.waitForLine(containing: "waiting pid="))
        let target = try #require(Int32(waiting.dropFirst("waiting pid=".count)))
        let exited = try #require(ProcessEnd(pid: target))
        kill(running.pid, SIGSTOP)
        running.send(stdin: "go\n")
        exited.wait()
        // The lateness under test, not a synchronisation: lagmon stays frozen past the threshold.
        usleep(1_000_000)
        kill(running.pid, SIGCONT)
        let exitLine = try #require(running.waitForLine(containing: "exit at "))
        let exitNs = try #require(UInt64(exitLine.dropFirst("exit at ".count)))
        let result = try running.finish()
        #expect(result.status == 0)
        let report = try #require(result.report)
        #expect(report.stalls.isEmpty, "stalls: \(report.stalls.map { ($0.durationNs, $0.ongoingAtExit) })")
        let truthNs = exitNs - report.target.monotonicStartNs
        #expect(report.target.wallNs >= truthNs)
        #expect(
            report.target.wallNs < truthNs + 250_000_000, "wall \(report.target.wallNs) ns, exit after \(truthNs) ns")
    }

    /// A SIGKILL in the middle of a stall, with lagmon frozen (SIGSTOP) across it for a second:
    /// nothing runs in the killed program to record its end, and the kernel's taskstats record of
    /// its death ends the stall and the session, not lagmon's notice a second later.
    @Test(.enabled(if: getuid() == 0, "taskstats listeners need CAP_NET_ADMIN: without, a death ends when noticed"))
    func aKillEndsItsStallAtTheDeathEvenWithLagmonLate() throws {
        let running = try LagmonProcess([
            "run", "--no-stacks", "--threshold", "100ms", "--", Binaries.loopFixture, "busy-until-input",
        ])
        let busy = try #require(running.waitForLine(containing: "busy pid="))
        let target = try #require(Int32(busy.dropFirst("busy pid=".count)))
        let exited = try #require(ProcessEnd(pid: target))
        // The stall's length, not a synchronisation: it passes the threshold before the kill.
        usleep(300_000)
        kill(running.pid, SIGSTOP)
        let killedNs = Self.monotonicNs()
        kill(target, SIGKILL)
        exited.wait()
        let exitSeenNs = Self.monotonicNs()
        // The lateness under test, not a synchronisation: lagmon stays frozen past the death.
        usleep(1_000_000)
        kill(running.pid, SIGCONT)
        let result = try running.finish()
        #expect(result.status == 128 + SIGKILL)
        let report = try #require(result.report)
        let stall = try #require(report.stalls.last, "stalls: \(report.stalls)")
        #expect(stall.ongoingAtExit)
        #expect(stall.durationNs >= 300_000_000)
        let endNs = report.target.monotonicStartNs + stall.startNs + stall.durationNs
        // The death lies between the kill and the moment the test saw the process gone.
        #expect(endNs + 1_000_000 >= killedNs && endNs <= exitSeenNs + 1_000_000, "end \(endNs), killed \(killedNs)")
        #expect(report.target.monotonicStartNs + report.target.wallNs <= exitSeenNs + 1_000_000)
    }

    /// The same for a descendant `--follow-children` follows: its death, dated by the kernel,
    /// ends its stall, not lagmon's notice a second later.
    @Test func aKilledChildsStallEndsAtItsDeathEvenWithLagmonLate() throws {
        let running = try LagmonProcess([
            "run", "--follow-children", "--no-stacks", "--threshold", "100ms", "--", "/bin/sh", "-c",
            "\(Binaries.loopFixture) busy-until-input; echo child ended",
        ])
        let busy = try #require(running.waitForLine(containing: "busy pid="))
        let child = try #require(Int32(busy.dropFirst("busy pid=".count)))
        #expect(child != running.pid)
        let exited = try #require(ProcessEnd(pid: child))
        // The stall's length, not a synchronisation: it passes the threshold before the kill.
        usleep(300_000)
        kill(running.pid, SIGSTOP)
        let killedNs = Self.monotonicNs()
        kill(child, SIGKILL)
        exited.wait()
        let exitSeenNs = Self.monotonicNs()
        // The lateness under test, not a synchronisation: lagmon stays frozen past the death.
        usleep(1_000_000)
        kill(running.pid, SIGCONT)
        let result = try running.finish()
        #expect(result.status == 0)
        let report = try #require(result.report)
        let stall = try #require(report.stalls.last { $0.pid == child }, "stalls: \(report.stalls)")
        #expect(stall.durationNs >= 300_000_000)
        let endNs = report.target.monotonicStartNs + stall.startNs + stall.durationNs
        #expect(endNs + 1_000_000 >= killedNs && endNs <= exitSeenNs + 1_000_000, "end \(endNs), killed \(killedNs)")
    }

    static func monotonicNs() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// A crash in the middle of a stall, with lagmon frozen (SIGSTOP) across it for a second: the
    /// probe's fatal-signal handler records the end on the target's clock, so the stall lasts
    /// what the program logged, not until lagmon noticed; the target still dies of its SIGSEGV.
    @Test func aCrashEndsItsStallOnTheTargetsClockEvenWithLagmonLate() throws {
        // No stacks: a lagmon frozen mid-sample would hold the target stopped (any tracer would).
        let running = try LagmonProcess(
            [
                "run", "--no-stacks", "--threshold", "100ms", "--", Binaries.loopFixture, "stall", "--wait-for-input",
                "--stalls", "0", "--ticks-after", "0", "--crash-busy",
            ], environment: Self.noSwiftBacktracer)
        let waiting = try #require(running.waitForLine(containing: "waiting pid="))
        let target = try #require(Int32(waiting.dropFirst("waiting pid=".count)))
        let exited = try #require(ProcessEnd(pid: target))
        kill(running.pid, SIGSTOP)
        running.send(stdin: "go\n")
        exited.wait()
        // The lateness under test, not a synchronisation: lagmon stays frozen past the crash.
        usleep(1_000_000)
        kill(running.pid, SIGCONT)
        let line = try #require(running.waitForLine(containing: "busy from "))
        let numbers = line.split(separator: " ").compactMap { UInt64($0) }
        try #require(numbers.count == 2, "\(line)")
        let result = try running.finish()
        #expect(result.status == 128 + SIGSEGV)
        let report = try #require(result.report)
        #expect(report.target.signalName == "SIGSEGV")
        let stall = try #require(report.stalls.last, "stalls: \(report.stalls)")
        #expect(stall.ongoingAtExit)
        // The stall began at the wake-up before `busy from` and ended in the handler after
        // `crash at`: microseconds apart on an idle machine, a preemption or two on a loaded one.
        // The probe reads the time-stamp counter, extrapolated from a CLOCK_MONOTONIC anchor at
        // most 50 ms old: it can read a few microseconds off the program's own clock_gettime
        // (2.2 µs late once, on a loaded machine).
        let margin: UInt64 = 25_000_000
        let counterSlack: UInt64 = 50_000
        let startNs = report.target.monotonicStartNs + stall.startNs
        #expect(
            startNs <= numbers[0] + counterSlack && numbers[0] - min(startNs, numbers[0]) <= margin,
            "start \(startNs), busy from \(numbers[0])")
        let truthNs = numbers[1] - numbers[0]
        #expect(
            stall.durationNs >= truthNs && stall.durationNs <= truthNs + margin,
            "stall \(stall.durationNs) ns, the program spun \(truthNs) ns before it crashed")
        #expect(report.target.monotonicStartNs + report.target.wallNs <= numbers[1] + margin)
    }

    /// SwiftPM links the C fixture with the Swift runtime, whose backtracer handles SIGSEGV
    /// before lagmon's probe attaches, and a program's own handler is left alone (the limit is in
    /// docs/report.md): without it the fixture is a plain C program with the default action.
    static let noSwiftBacktracer = ["SWIFT_BACKTRACE": "enable=no"]

    /// Whether a core dump lands in the crashing process's working directory (core_pattern is a
    /// plain file name), so a test can see that lagmon's probe leaves the dump to the kernel.
    static let coresLandInTheWorkingDirectory: Bool = {
        let pattern = (try? String(contentsOfFile: "/proc/sys/kernel/core_pattern", encoding: .utf8)) ?? "|"
        return !pattern.hasPrefix("|") && !pattern.contains("/")
    }()

    /// The fatal-signal handler restores the default action and lets the crash proceed: the
    /// kernel still writes the core (RLIMIT_CORE raised for the test), of the same signal.
    @Test(.enabled(if: coresLandInTheWorkingDirectory, "core_pattern sends cores elsewhere (a pipe or a path)"))
    func aCrashUnderLagmonStillDumpsCore() throws {
        let directory = temporaryPath("core")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try LagmonProcess.run(
            [
                "run", "--no-stacks", "--", Binaries.loopFixture, "stall", "--stalls", "0", "--ticks-before", "1",
                "--ticks-after", "0", "--crash-busy",
            ],
            environment: Self.noSwiftBacktracer,
            wrapper: ["/bin/sh", "-c", "ulimit -c unlimited && cd \"$0\" && exec \"$@\"", directory])
        #expect(result.status == 128 + SIGSEGV)
        #expect(result.report?.target.signalName == "SIGSEGV")
        let cores = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("core") }
        let core = try #require(cores.first, "no core in \(directory)")
        let header = try #require(FileHandle(forReadingAtPath: directory + "/" + core)?.readData(ofLength: 18))
        #expect(header.prefix(4) == Data([0x7F, 0x45, 0x4C, 0x46]), "an ELF file")
        #expect(header.count == 18 && header[16] == 4, "of type ET_CORE")
    }

    @Test func ctrlCIsForwardedAndTheReportWritten() throws {
        let running = try LagmonProcess(["run", "--", Binaries.demo, "--scenario", "idle", "--seconds", "60"])
        _ = try #require(running.waitForLine(containing: "idle for"))
        kill(running.pid, SIGINT)
        let result = try running.finish()
        #expect(result.status == 128 + SIGINT)
        let report = try #require(result.report)
        #expect(report.target.signalName == "SIGINT")
        #expect(report.target.wallNs < 30_000_000_000)
        #expect(report.stalls.isEmpty)
    }

    /// ^C typed on lagmon's terminal reaches a target in lagmon's process group directly (lagmon
    /// does not send it twice) and is forwarded to one that left it (setsid): either way it ends.
    @Test(arguments: [[], ["setsid"]])
    func terminalCtrlCEndsTheTargetWhereverItsProcessGroup(_ prefix: [String]) throws {
        let script = Binaries.packageRoot + "/Tests/Fixtures/terminal/ctrl_c_under_pty.py"
        let command = [Binaries.lagmon, "run", "--quiet", "--"] + prefix + ["sh", "-c", "echo ready; exec sleep 30"]
        let started = Date()
        let result = try ToolRun.run(["timeout", "60", "python3", script] + command)
        #expect(result.text.contains("exit=130"), "\(result.text)")
        #expect(Date().timeIntervalSince(started) < 20, "the target ended on ^C, not after its 30 s")
    }

    /// A signal that comes while the program is being started is the program's: kept and sent
    /// once lagmon has its pid. The program signals lagmon from its first instruction, before
    /// lagmon can have finished starting it (5 of 6 such runs ended lagmon itself, with no
    /// report and the program orphaned, before the signal was kept).
    @Test(arguments: 1...5)
    func aSignalWhileTheProgramStartsReachesIt(run: Int) throws {
        let result = try LagmonProcess.run(["run", "--", "/bin/sh", "-c", "kill -TERM $PPID; exec sleep 20"])
        #expect(result.status == 128 + SIGTERM, "run \(run): \(result.stderr)")
        #expect(result.report?.target.signalName == "SIGTERM", "run \(run): \(result.stderr)")
    }

    /// A plain program, so the signal's default action shows: Swift programs print a backtrace on
    /// SIGQUIT and carry on.
    @Test(arguments: [(SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP"), (SIGQUIT, "SIGQUIT")])
    func otherStopSignalsAreForwardedToo(_ signal: Int32, _ name: String) throws {
        let running = try LagmonProcess(["run", "--", "/bin/sh", "-c", "echo ready; exec sleep 60"])
        _ = try #require(running.waitForLine(containing: "ready"))
        kill(running.pid, signal)
        let result = try running.finish()
        #expect(result.status == 128 + signal)
        #expect(result.report?.target.signalName == name)
    }
}

/// lagmon itself delayed: its watchdog wakes late, but the stalls (timed by the observer in the
/// target) are all still reported exactly, and the report blames lagmon, not the target.
@Suite(.serialized)
struct LateWatchdogTests {
    @Test func stoppedLagmonStillReportsEveryStallAndSaysItWasLate() throws {
        let truthPath = temporaryPath("truth.json")
        defer { try? FileManager.default.removeItem(atPath: truthPath) }
        // No stack sampling: a lagmon frozen in the middle of a sample would hold the demo
        // stopped too (as any ptrace-based tool would), and the test would wait forever.
        let running = try LagmonProcess(
            ["run", "--no-stacks", "--", Binaries.demo, "--scenario", "naive", "--truth", truthPath])
        _ = try #require(running.waitForLine(containing: "row 0 shown"))
        // Freeze lagmon (all its threads) while the demo goes through two stalls.
        kill(running.pid, SIGSTOP)
        let frozenNs = FaultTests.monotonicNs()
        _ = try #require(running.waitForLine(containing: "row 2 shown"))
        kill(running.pid, SIGCONT)
        let result = try running.finish()
        let report = try #require(result.report)
        let truth = try DemoTruth.load(truthPath)
        #expect(report.stalls.count == truth.count)
        for (stall, injected) in zip(report.stalls, truth) {
            #expect(injected.fits(stall.durationNs), "\(stall.durationNs) vs \(injected.durationNs)")
        }
        #expect(report.stalls.count == 6)
        // Stall 1 began and ended while lagmon was frozen (stall 2 may still be going at SIGCONT),
        // unless a loaded machine held this test back past its start before the SIGSTOP.
        if report.stalls.count == 6, truth.count == 6, frozenNs < truth[1].startMonotonicNs {
            #expect(!report.stalls[1].seenLive)
        }
        #expect(report.watchdog.latenessMaxNs > 100_000_000)
        let late = try #require(report.diagnostics.first { $0.code == "watchdog-late" })
        #expect(late.message.contains("not the target"))
    }
}

/// A process's exit, seen through a pidfd (readable once it exited, whoever its parent is).
struct ProcessEnd {
    private let descriptor: Int32

    init?(pid: Int32) {
        typealias PidfdOpen = @convention(c) (pid_t, UInt32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pidfd_open") else { return nil }
        descriptor = unsafeBitCast(symbol, to: PidfdOpen.self)(pid, 0)
        guard descriptor >= 0 else { return nil }
    }

    /// Blocks until the process exited.
    func wait() {
        var polled = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while poll(&polled, 1, -1) < 0 && errno == EINTR {}
        close(descriptor)
    }
}
