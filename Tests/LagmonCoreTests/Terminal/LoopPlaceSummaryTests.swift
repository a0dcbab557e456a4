import Testing

@testable import LagmonCore

/// The terminal summary names a stall's thread (and process) once a report has several loops.
struct LoopPlaceSummaryTests {
    static let ms = Fixture.ms
    let writer = TerminalSummaryWriter(style: TerminalStyle(colors: false))

    func loop(tid: Int32, name: String, pid: Int32 = 4242) -> LoopReport {
        LoopReport(
            thread: ThreadRef(tid: tid, name: name), pid: pid, observer: "waitcall", iterations: 10, transitions: 20,
            busyNs: 0, observedNs: Fixture.second,
            latency: LatencySummary(count: 0, p50Ns: 0, p90Ns: 0, p99Ns: 0, maxNs: 0), stallCount: 1)
    }

    func stall(tid: Int32, name: String, pid: Int32) -> StallReport {
        StallReport(
            id: 1, thread: ThreadRef(tid: tid, name: name), startNs: 100 * Self.ms, durationNs: 300 * Self.ms,
            activity: .afterWaiting, ongoingAtExit: false, seenLive: true, pid: pid)
    }

    @Test func oneLoopNeedsNoPlace() {
        let report = Fixture.report(
            loops: [loop(tid: 4242, name: "app")], stalls: [stall(tid: 4242, name: "app", pid: 4242)])
        #expect(writer.lines(report).contains("  #1 +0.100s 300ms busy in a callback"))
    }

    @Test func severalLoopsNameTheThread() {
        let report = Fixture.report(
            loops: [loop(tid: 4242, name: "app"), loop(tid: 4243, name: "io-worker")],
            stalls: [stall(tid: 4243, name: "io-worker", pid: 4242)])
        #expect(writer.lines(report).contains("  #1 +0.100s 300ms busy in a callback on thread 4243 \"io-worker\""))
    }

    @Test func aChildsLoopAndStallNameTheirProcess() {
        let report = Fixture.report(
            loops: [loop(tid: 5000, name: "child", pid: 5000)], stalls: [stall(tid: 5000, name: "child", pid: 5000)])
        let lines = writer.lines(report)
        #expect(lines.contains("  #1 +0.100s 300ms busy in a callback on thread 5000 \"child\" of pid 5000"))
        #expect(lines.contains { $0.hasPrefix("waitcall loop on thread 5000 \"child\" of pid 5000: 10 iterations") })
    }
}
