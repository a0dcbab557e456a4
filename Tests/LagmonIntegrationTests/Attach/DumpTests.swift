import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// `lagmon dump PID` against real processes: a loop busy in a named C function, idle loops in
/// epoll_wait and poll, a Python program in its own functions. Each fixture says on stdout when
/// it is where the test wants it (and stays there until told), so nothing races a clock; after
/// the dump the process still runs, neither stopped nor traced.
@Suite(.serialized)
struct DumpTests {
    static func dump(_ pid: pid_t, _ extra: [String] = []) throws -> (ToolRun, ProcessDump?) {
        let run = try ToolRun.run([Binaries.lagmon, "dump", "--json"] + extra + [String(pid)])
        return (run, try? DumpJSONWriter.decode(Array(run.stdout)))
    }

    /// Still running: not stopped (`T`, `t`) and traced by no one.
    static func expectRunningUntraced(_ pid: pid_t) throws {
        for tid in try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") {
            let status = try String(contentsOfFile: "/proc/\(pid)/task/\(tid)/status", encoding: .utf8)
            let lines = status.split(separator: "\n")
            #expect(lines.contains("TracerPid:\t0"), "thread \(tid): \(lines.filter { $0.hasPrefix("TracerPid") })")
            let state = lines.first { $0.hasPrefix("State:") } ?? ""
            #expect(!state.contains("(stopped)") && !state.contains("(tracing stop)"), "thread \(tid): \(state)")
        }
    }

    @Test func aBusyLoopIsBusyInItsFunctionAndLeftRunningUntraced() throws {
        let program = try WatchedProgram([Binaries.loopFixture, "busy-until-input"])
        _ = try #require(program.waitForLine(containing: "busy pid="))
        let (run, parsed) = try Self.dump(program.pid)
        #expect(run.status == 0, "\(run.stderr)")
        let dump = try #require(parsed)
        let main = try #require(dump.threads.first { $0.isMain })
        #expect(main.activity == .busy)
        #expect(main.frames.contains { $0.symbol == "spin_until_told_in_c_loop" }, "\(main.frames.map(\.displayName))")
        #expect(main.frames.contains { $0.symbol == "run_busy" })
        // The stdin reader is blocked in read, no loop: shown only with --all.
        #expect(dump.threads.count == 1 && dump.threadCount == 2)
        try Self.expectRunningUntraced(program.pid)
        // The reader is read asleep in its read once it got a CPU again after the first dump's
        // stop (restarted by the kernel); on a loaded machine a look can come before that and
        // find it runnable, so the text dump is taken again until it shows the reader asleep.
        var text = try ToolRun.run([Binaries.lagmon, "dump", "--all", "--color", "never", String(program.pid)])
        for _ in 0..<10 where !text.text.contains("\"stdin-reader\": blocked in read") {
            text = try ToolRun.run([Binaries.lagmon, "dump", "--all", "--color", "never", String(program.pid)])
        }
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.text.contains("(main): busy, running its own code"), "\(text.text)")
        // It spins until told: out of its wait at every reading of the look.
        #expect(text.text.contains(", busy for at least "), "\(text.text)")
        #expect(main.readings > 0 && main.busyReadings == main.readings)
        #expect(text.text.contains("\"stdin-reader\": blocked in read"), "\(text.text)")
        #expect(text.text.contains("    spin_until_told_in_c_loop (lagmon-loop-fixture"), "\(text.text)")
        try Self.expectRunningUntraced(program.pid)
        program.send(line: "stop")
        program.readToEnd()
        #expect(program.lines.last == "done")
        #expect(program.waitForExit() == 0)
    }

    @Test(arguments: ["epoll": "epoll_wait", "poll": "poll", "select": "pselect6"])
    func anIdleLoopWaitsInItsWaitCall(_ wait: String, _ call: String) throws {
        // After its line the loop sleeps in its wait call on stdin until the test writes a line
        // (glibc's select is the pselect6 system call).
        let program = try WatchedProgram([Binaries.loopFixture, "idle-until-input", "--wait", wait])
        _ = try #require(program.waitForLine(containing: "idle pid="))
        let (run, parsed) = try Self.dump(program.pid)
        #expect(run.status == 0, "\(run.stderr)")
        let dump = try #require(parsed)
        let main = try #require(dump.threads.first)
        #expect(main.isMain && dump.threads.count == 1)
        #expect(main.activity == .waiting, "\(main.activity)")
        // A poll with a timeout that a stop interrupted (a loaded machine, another reader) goes
        // back to sleep as restart_syscall, which is the same wait.
        #expect(main.syscall == call || (call == "poll" && main.syscall == "restart_syscall"), "\(main.syscall ?? "-")")
        #expect(main.readings > 0 && main.busyReadings == 0)
        #expect(main.frames.contains { $0.symbol == "loop_tick" }, "\(main.frames.map(\.displayName))")
        #expect(main.frames.contains { $0.symbol == "run_idle_until_input" })
        try Self.expectRunningUntraced(program.pid)
        program.send(line: "go")
        program.readToEnd()
        #expect(program.lines.last == "done")
        // The dump's stop did not break the wait: the kernel restarts poll and select, lagmon an
        // epoll_wait without a timeout (which would otherwise return EINTR to the program).
        #expect(program.lines.contains("interrupted waits=0 signals=0"), "\(program.lines)")
        #expect(program.waitForExit() == 0)
    }

    @Test func aPythonProgramShowsItsPythonFunctions() throws {
        let python = "/usr/bin/python3"
        let fixture = Binaries.packageRoot + "/Tests/Fixtures/lagmon-python-fixture/lagmon_python_stall.py"
        let program = try WatchedProgram([python, fixture, "native"])
        // Right after this line the main thread calls handle_request, which parses in parse_feed
        // for 60 s: a few bytecodes against the 100 ms look before the stack is taken. On a
        // loaded machine the thread may not have run them yet by the first dump, so it is dumped
        // again (at most 10 times) until its stack is in parse_feed.
        _ = try #require(program.waitForLine(containing: "native tid="))
        var pythonFrames: [String] = []
        for _ in 0..<10 where !pythonFrames.contains("parse_feed") {
            let (run, parsed) = try Self.dump(program.pid)
            #expect(run.status == 0, "\(run.stderr)")
            let main = try #require(parsed?.threads.first { $0.isMain })
            pythonFrames = main.frames.filter { $0.runtime == .python }.compactMap(\.symbol)
        }
        #expect(pythonFrames.contains("parse_feed") && pythonFrames.contains("handle_request"), "\(pythonFrames)")
        try Self.expectRunningUntraced(program.pid)
    }

    @Test func noSuchProcessIsOneLineAnd127() throws {
        // A pid above the kernel's maximum is never a process.
        let max = try String(contentsOfFile: "/proc/sys/kernel/pid_max", encoding: .utf8)
        let pid = (Int(max.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 4_194_304) + 1
        let run = try ToolRun.run([Binaries.lagmon, "dump", String(pid)])
        #expect(run.status == 127)
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        #expect(run.stderr.hasPrefix("lagmon: no process with pid \(pid); check the pid"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    @Test func permissionRefusedIsAttachsLineAnd126() throws {
        // The fixture runs as root; lagmon as nobody may not read its threads.
        let program = try WatchedProgram([Binaries.loopFixture, "loops", "1"])
        _ = try #require(program.waitForLine(containing: "loops ready"))
        let result = try LagmonProcess.run(
            ["dump", String(program.pid)], json: false,
            wrapper: ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        #expect(result.status == 126)
        #expect(
            result.stderr.hasPrefix(
                "lagmon: cannot attach to pid \(program.pid) (lagmon-loop-fix): permission denied reading /proc/\(program.pid)/task/\(program.pid)/syscall (EACCES); run lagmon as root or with CAP_SYS_PTRACE"
            ), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(program.runsUntraced)
    }
}
