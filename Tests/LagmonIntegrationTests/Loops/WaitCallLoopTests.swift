import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// Event loops that are not CFRunLoops, watched through their wait calls: plain C epoll loops,
/// Python asyncio, Node.js; loops on other threads (`--loops`) and in child processes
/// (`--follow-children`). Each fixture stalls once for a known time in a named function, or not
/// at all.
@Suite(.serialized)
struct WaitCallLoopTests {
    static let ms: UInt64 = 1_000_000

    /// The one stall a fixture injects: about 250 ms (a loaded machine adds, never removes). The
    /// time lagmon measured the thread waiting for a CPU in it (its contention) is the machine's,
    /// not the fixture's: a 250 ms node stall lasted 487 ms at load 14.
    static func expectInjected(_ stall: StallReport, atLeastMs: UInt64 = 250) {
        #expect(stall.durationNs >= atLeastMs * ms - 2 * ms, "stall of \(stall.durationNs) ns")
        let waitedForCPU = min(stall.contention?.runQueueNs ?? 0, stall.durationNs)
        #expect(
            stall.durationNs - waitedForCPU < atLeastMs * ms + 150 * ms,
            "stall of \(stall.durationNs) ns, \(waitedForCPU) ns of it waiting for a CPU")
        #expect(stall.activity == "afterWaiting")
        #expect(!stall.ongoingAtExit)
    }

    // MARK: C

    @Test func aCEpollLoopsStallIsFoundWithItsCulpritAndTheExitStatusPassesThrough() throws {
        let result = try LagmonProcess.run(["run", "--", Binaries.loopFixture, "stall", "--exit-status", "7"])
        #expect(result.status == 7)
        let report = try #require(result.report)
        #expect(report.target.exitStatus == 7)
        let loop = try #require(report.loops.first)
        #expect(report.loops.count == 1)
        #expect(loop.observer == "waitcall")
        #expect(loop.thread.tid == report.target.pid)
        #expect(loop.iterations >= 9, "\(loop.iterations) iterations")
        #expect(loop.stallCount == 1)
        let stall = try #require(report.stalls.first)
        #expect(report.stalls.count == 1)
        Self.expectInjected(stall)
        #expect(stall.pid == report.target.pid)
        #expect(stall.seenLive)
        #expect(stall.samples >= 5)
        #expect(stall.culprit?.symbol == "spin_for_250ms_in_c_loop")
        #expect(stall.culprit?.module == "lagmon-loop-fixture")
        #expect(report.config.loops == "auto")
        #expect(report.diagnostics.filter { $0.code == "no-observer" }.isEmpty)
        #expect(result.lagmonLines.contains { $0.contains("waitcall loop on thread \(report.target.pid)") })
    }

    @Test(arguments: ["poll", "select"])
    func aCLoopSleepingInPollOrSelectIsWatchedToo(wait: String) throws {
        let result = try LagmonProcess.run(["run", "--", Binaries.loopFixture, "stall", "--wait", wait])
        #expect(result.status == 0)
        let report = try #require(result.report)
        let loop = try #require(report.loops.first)
        #expect(loop.observer == "waitcall")
        #expect(loop.iterations >= 9, "\(loop.iterations) iterations")
        let stall = try #require(report.stalls.first)
        #expect(report.stalls.count == 1)
        Self.expectInjected(stall)
        #expect(stall.culprit?.symbol == "spin_for_250ms_in_c_loop")
    }

    /// Sampling a stall stops its thread; letting the thread go must not stop it again once the
    /// loop is back in its wait call: a stop there makes epoll_wait fail with EINTR, which a loop
    /// that does not retry (Python 2.7's `epoll.poll`) dies of. The fixture counts its EINTRs.
    @Test(arguments: ["epoll", "poll", "select"])
    func samplingStallsNeverBreaksTheLoopsWaitCall(wait: String) throws {
        let result = try LagmonProcess.run([
            "run", "--", Binaries.loopFixture, "stall", "--stalls", "3", "--wait", wait,
        ])
        #expect(result.status == 0)
        let report = try #require(result.report)
        #expect(report.stalls.count == 3)
        #expect(report.stalls.allSatisfy { $0.samples > 0 }, "\(report.stalls.map(\.samples)) samples")
        #expect(result.stdout.contains("interrupted waits=0\n"), "\(result.stdout)")
    }

    @Test func anIdleCLoopHasNoStalls() throws {
        let result = try LagmonProcess.run(["run", "--", Binaries.loopFixture, "idle"])
        let report = try #require(result.report)
        #expect(result.status == 0)
        #expect(report.stalls.isEmpty)
        let loop = try #require(report.loops.first)
        #expect(loop.observer == "waitcall")
        #expect(loop.iterations >= 20, "25 ticks, \(loop.iterations) iterations seen")
        #expect(loop.latency.maxNs < 50 * Self.ms)
    }

    @Test func aProgramThatWaitsOnceIsNoLoop() throws {
        // One poll, then 250 ms of work: not a loop, so no stall (and lagmon says why).
        let result = try LagmonProcess.run(["run", "--", Binaries.loopFixture, "oneshot"])
        let report = try #require(result.report)
        #expect(report.loops.isEmpty)
        #expect(report.stalls.isEmpty)
        #expect(report.diagnostics.first { $0.code == "no-observer" }?.message.contains("no event loop found") == true)
    }

    // MARK: Threads

    /// A multi-threaded TCP server: an acceptor loop on the main thread, an "io-worker" loop that
    /// blocks 300 ms on one request, and a client thread without a loop.
    @Test func aWorkerThreadsLoopIsWatchedWithLoopsAllOnly() throws {
        let main = try LagmonProcess.run(["run", "--loops", "main", "--", Binaries.loopFixture, "threads"])
        let mainReport = try #require(main.report)
        #expect(mainReport.stalls.isEmpty, "the worker's loop is not watched with --loops main")
        #expect(mainReport.loops.map(\.thread.tid) == [mainReport.target.pid])
        #expect(mainReport.config.loops == "main")
        // `watchdog-late` (lagmon's own lateness on a loaded machine) may come beside it.
        #expect(
            mainReport.diagnostics.map(\.code).filter { $0 != "watchdog-late" } == ["unwatched-loops"],
            "the worker's loop is mentioned: \(mainReport.diagnostics.map(\.code))")

        let all = try LagmonProcess.run(["run", "--loops", "all", "--", Binaries.loopFixture, "threads"])
        let report = try #require(all.report)
        let worker = try #require(Self.workerTid(all.stdout))
        #expect(report.config.loops == "all")
        #expect(Set(report.loops.map(\.thread.tid)) == [report.target.pid, worker])
        let workerLoop = try #require(report.loops.first { $0.thread.tid == worker })
        #expect(workerLoop.thread.name == "io-worker")
        #expect(workerLoop.stallCount == 1)
        #expect(report.loops.first { $0.thread.tid == report.target.pid }?.stallCount == 0)
        let stall = try #require(report.stalls.first)
        #expect(report.stalls.count == 1)
        #expect(stall.thread == ThreadRef(tid: worker, name: "io-worker"))
        Self.expectInjected(stall, atLeastMs: 300)
        #expect(stall.culprit?.symbol == "worker_blocks_for_300ms")
        #expect(stall.diagnosis.kind == .sleep, "\(stall.diagnosis.text)")
        #expect(all.lagmonLines.contains { $0.contains("on thread \(worker) \"io-worker\"") })
    }

    @Test func loopsByNameWatchOnlyThoseThreads() throws {
        let result = try LagmonProcess.run(["run", "--loops", "io-*", "--", Binaries.loopFixture, "threads"])
        let report = try #require(result.report)
        let worker = try #require(Self.workerTid(result.stdout))
        #expect(report.config.loops == "io-*")
        #expect(report.loops.map(\.thread) == [ThreadRef(tid: worker, name: "io-worker")])
        #expect(report.stalls.map(\.thread.tid) == [worker])

        let none = try LagmonProcess.run(["run", "--loops", "nobody", "--", Binaries.loopFixture, "threads"])
        let message = try #require(none.report?.diagnostics.first { $0.code == "no-observer" }?.message)
        #expect(message.contains("no loop thread matched --loops nobody"), "\(message)")
        #expect(message.contains("'io-worker'"), "\(message)")
    }

    @Test func anInvalidLoopsValueIsAUsageError() throws {
        let result = try LagmonProcess.run(["run", "--loops", "all,main", "--", Binaries.loopFixture, "idle"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--loops all already watches every loop"))
        #expect(result.report == nil)
    }

    // MARK: Children

    @Test(arguments: ["exec", "fork"])
    func aChildProcesssStallIsFoundWithFollowChildren(how: String) throws {
        let result = try LagmonProcess.run([
            "run", "--follow-children", "--", Binaries.loopFixture, "fork-child", how,
        ])
        #expect(result.status == 3, "the target exits with its child's status")
        let report = try #require(result.report)
        let child = try #require(Self.childPid(result.stdout))
        let stall = try #require(report.stalls.first)
        #expect(report.stalls.count == 1)
        Self.expectInjected(stall)
        #expect(stall.pid == child)
        #expect(stall.thread.tid == child)
        #expect(stall.culprit?.symbol == "spin_for_250ms_in_c_loop", "stacks of a child's thread")
        #expect(report.loops.map(\.pid) == [child])
        let processes = try #require(report.processes)
        #expect(processes.map(\.pid) == [report.target.pid, child])
        let childEntry = try #require(processes.last)
        #expect(childEntry.ppid == report.target.pid)
        #expect(childEntry.command.dropFirst().first == (how == "exec" ? "stall" : "fork-child"))
        #expect(childEntry.execs == (how == "exec" ? 1 : 0))
        #expect(childEntry.endNs != nil)
        #expect(childEntry.loopCount == 1 && childEntry.stallCount == 1)
        #expect(processes.first?.loopCount == 0)
    }

    // MARK: Exec

    /// A loop that execs another loop program: the new image (same pid, same main thread) is
    /// probed again and its stall kept, so a budget on it fails.
    @Test func aLoopThatExecsAnotherLoopProgramKeepsTheNewImagesStalls() throws {
        let result = try LagmonProcess.run([
            "run", "--budget", "stall.count < 1", "--", Binaries.loopFixture, "exec-after-loop",
        ])
        #expect(result.status == 99, "the new image's stall fails the budget: \(result.lagmonLines.suffix(3))")
        #expect(result.stdout.contains("exec pid="))
        #expect(result.stdout.contains("done"), "the new image ran to its end")
        let report = try #require(result.report)
        let stall = try #require(report.stalls.first)
        #expect(report.stalls.count == 1)
        Self.expectInjected(stall)
        #expect(stall.pid == report.target.pid)
        #expect(stall.culprit?.symbol == "spin_for_250ms_in_c_loop")
        #expect(report.loops.map(\.pid) == [report.target.pid, report.target.pid], "one loop per image")
        #expect(report.loops.map(\.stallCount) == [0, 1])
        #expect(report.processes?.first?.execs == 1)
    }

    @Test func aFollowedChildThatExecsAnotherLoopProgramKeepsItsStalls() throws {
        let result = try LagmonProcess.run([
            "run", "--follow-children", "--", Binaries.loopFixture, "fork-child", "loop-exec",
        ])
        #expect(result.status == 0)
        let report = try #require(result.report)
        let child = try #require(Self.childPid(result.stdout))
        let stall = try #require(report.stalls.first)
        #expect(report.stalls.count == 1)
        Self.expectInjected(stall)
        #expect(stall.pid == child)
        #expect(stall.culprit?.symbol == "spin_for_250ms_in_c_loop")
        #expect(report.loops.map(\.pid) == [child, child])
    }

    @Test func childrenAreNotWatchedByDefaultAndLagmonSaysSo() throws {
        let result = try LagmonProcess.run(["run", "--", Binaries.loopFixture, "fork-child", "exec"])
        #expect(result.status == 3)
        let report = try #require(result.report)
        #expect(report.stalls.isEmpty)
        #expect(report.processes?.map(\.pid) == [report.target.pid])
        let message = try #require(report.diagnostics.first { $0.code == "no-observer" }?.message)
        #expect(message.hasSuffix("add --follow-children)"), "\(message)")
    }

    // MARK: Python and Node.js

    @Test func aPythonAsyncioProgramsSynchronousSleepIsAStall() throws {
        let result = try LagmonProcess.run(["run", "--", "python3", Self.asyncioFixture, "stall"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("done"))
        let report = try #require(result.report)
        let loop = try #require(report.loops.first)
        #expect(report.loops.count == 1)
        #expect(loop.observer == "waitcall")
        let stall = try #require(report.stalls.first)
        #expect(report.stalls.count == 1)
        Self.expectInjected(stall)
        #expect(stall.thread.tid == report.target.pid)
        #expect(stall.diagnosis.kind == .sleep, "\(stall.diagnosis.text)")
    }

    @Test func anIdlePythonAsyncioProgramHasNoStalls() throws {
        let result = try LagmonProcess.run(["run", "--", "python3", Self.asyncioFixture, "idle"])
        let report = try #require(result.report)
        #expect(report.stalls.isEmpty)
        #expect(report.loops.first?.iterations ?? 0 >= 20)
    }

    @Test func aNodeProgramsSynchronousWorkIsAStall() throws {
        let result = try LagmonProcess.run(["run", "--", "node", Self.nodeFixture, "stall"])
        #expect(result.status == 0)
        let report = try #require(result.report)
        #expect(report.loops.first?.observer == "waitcall")
        let stall = try #require(report.stalls.first)
        #expect(report.stalls.count == 1)
        Self.expectInjected(stall)
        #expect(stall.thread.tid == report.target.pid)
        #expect(stall.samples >= 5)
    }

    @Test func anIdleNodeProgramHasNoStalls() throws {
        let result = try LagmonProcess.run(["run", "--", "node", Self.nodeFixture, "idle"])
        let report = try #require(result.report)
        // On a loaded machine the loop can wait for a CPU past the threshold (seen: 129 and 139 ms,
        // "waiting for a CPU"): a real stall, but none of the idle program's own work.
        #expect(
            report.stalls.allSatisfy { $0.diagnosis.kind == .runqueue },
            "stalls: \(report.stalls.map { ($0.durationNs, $0.diagnosis.text) })")
        #expect(report.loops.first?.iterations ?? 0 >= 20)
    }

    // MARK: Helpers

    static let asyncioFixture =
        Binaries.packageRoot + "/Tests/Fixtures/lagmon-asyncio-fixture/lagmon_asyncio_fixture.py"
    static let nodeFixture = Binaries.packageRoot + "/Tests/Fixtures/lagmon-node-fixture/lagmon-node-fixture.js"

    static func workerTid(_ stdout: String) -> Int32? { number(after: "worker tid=", in: stdout) }
    static func childPid(_ stdout: String) -> Int32? { number(after: "child pid=", in: stdout) }

    private static func number(after prefix: String, in text: String) -> Int32? {
        text.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Int32($0.dropFirst(prefix.count)) }
    }
}
