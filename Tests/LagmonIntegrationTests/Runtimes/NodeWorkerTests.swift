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
        let result = try LagmonProcess.run(["run", "--", "node", Self.fixture])
        #expect(result.status == 0, "\(result.stderr.suffix(600))")
        #expect(result.stdout.contains("done"))
        let report = try #require(result.report)
        let pid = report.target.pid
        let stall = try #require(report.stalls.first { $0.thread.tid != pid }, "stalls: \(report.stalls.map(\.thread))")
        #expect(report.stalls.count == 1, "only the worker stalls: \(report.stalls.map(\.durationNs))")
        #expect(stall.durationNs >= 195_000_000, "stall of \(stall.durationNs) ns")
        #expect(stall.culprit?.symbol == "stallWorkerFor200ms", "culprit \(stall.culprit?.displayName ?? "none")")
        #expect(stall.culprit?.runtime == .javascript)
        let watched = report.loops.filter { $0.pid == pid }.map(\.thread.tid)
        #expect(watched.contains(pid) && watched.contains(stall.thread.tid), "loops on \(watched)")
        // Helper threads wait on futexes, not in epoll/poll/select: never loops. node's one other
        // libuv loop (the platform's delayed-task scheduler) may be listed; nothing else is.
        #expect(watched.count <= 3, "loops on \(watched)")
        #expect(report.config.loops == "auto")
    }
}
