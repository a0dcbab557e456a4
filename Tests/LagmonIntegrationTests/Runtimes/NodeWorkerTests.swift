import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// node's `worker_threads`: each Worker runs its own libuv loop on a thread of its own, named
/// `node` like every other thread of node 20. With the default `--loops auto` a worker's stall is
/// found and named for its JavaScript function (the process's perf map holds the worker's code
/// too), while node's helper threads (libuv's pool, V8's platform workers) are not loops.
@Suite(.serialized)
struct NodeWorkerTests {
    static let fixture = Binaries.packageRoot + "/Tests/Fixtures/lagmon-node-jit-fixture/worker.js"

    @Test func aWorkersLoopIsWatchedByDefaultAndItsStallNamesTheFunction() throws {
        try NodeJITTests.requireNode()
        // Ahead of the machine's other work (nice -15, as StackTests.ahead): the main thread's
        // loop does a little work at the worker's start and messages (V8 compiles node's message
        // code on first use), which waiting for a CPU at load 9 on 2 cores once stretched past the
        // 100 ms threshold (109 ms in v8::internal::Scanner::Next).
        let result = try LagmonProcess.run(["run", "--", "node", Self.fixture], wrapper: StackTests.ahead)
        #expect(result.status == 0, "\(result.stderr.suffix(600))")
        #expect(result.stdout.contains("done"))
        let report = try #require(result.report)
        let pid = report.target.pid
        let seen = report.stalls.map { "\($0.thread.tid): \($0.durationNs) ns, \($0.culprit?.displayName ?? "-")" }
        let stall = try #require(
            report.stalls.first { $0.culprit?.symbol == "stallWorkerFor200ms" }, "stalls: \(seen)")
        #expect(stall.thread.tid != pid, "the stall is the worker's, not the main thread's")
        #expect(stall.culprit?.runtime == .javascript)
        #expect(stall.durationNs >= 195_000_000, "stall of \(stall.durationNs) ns")
        // The main thread's loop only waits for the worker's messages: no stall there. Other
        // stalls of the worker's thread are not asserted: once, at load 15 on 2 cores, a second
        // 100 ms one with no culprit was seen there (not in 8 runs since; not explained yet).
        #expect(report.stalls.allSatisfy { $0.thread.tid != pid }, "stalls: \(seen)")
        let watched = report.loops.filter { $0.pid == pid }.map(\.thread.tid)
        #expect(watched.contains(pid) && watched.contains(stall.thread.tid), "loops on \(watched)")
        // Helper threads wait on futexes, not in epoll/poll/select: never loops. node's one other
        // libuv loop (the platform's delayed-task scheduler) may be listed; nothing else is.
        #expect(watched.count <= 3, "loops on \(watched)")
        #expect(report.config.loops == "auto")
    }
}
