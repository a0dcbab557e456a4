import LagmonCore
import Testing

/// A session that followed its process across a restart: one report for both processes.
struct IncarnationTests {
    @Test func aRestartAddsTheSecondProcessLoopsAndEndsTheFirstsOpenStallAtItsDeath() {
        let ms = Fixture.ms
        let start = Fixture.spawnNs
        // The first process died 1 s in, in the middle of a busy period that began at 0.7 s.
        var firstLoop = Fixture.loop(
            tid: 100, openBusySinceNs: start + 700 * ms,
            lastSnapshot: LoopSnapshot(activity: .afterWaiting, sinceNs: start + 700 * ms))
        firstLoop.pid = 100
        var first = Fixture.recording(loops: [firstLoop], wallNs: 1_000 * ms, exit: nil)
        first.pid = 100
        first.attached = AttachedTarget(exited: true)
        first.samplesLost = 2
        first.processes = [
            ProcessRecording(
                index: 0, pid: 100, ppid: 1, command: ["app"], attachedNs: start, endNs: start + 1_000 * ms)
        ]
        var secondLoop = Fixture.loop(
            tid: 200,
            stallRecords: [StallRecord(startNs: start + 3_000 * ms, endNs: start + 3_250 * ms, activity: .afterWaiting)]
        )
        secondLoop.pid = 200
        var second = Fixture.recording(loops: [secondLoop], wallNs: 5_000 * ms, exit: nil)
        second.attached = AttachedTarget(exited: false)
        second.samplesLost = 3
        second.processes = [
            ProcessRecording(index: 0, pid: 200, ppid: 1, command: ["app"], attachedNs: start + 2_000 * ms)
        ]

        first.appendIncarnation(second)
        #expect(first.attached == AttachedTarget(exited: false, restarts: 1))
        #expect(first.samplesLost == 5)
        #expect(first.endNs == start + 5_000 * ms)
        #expect(first.processes.map(\.index) == [0, 1])
        let report = ReportBuilder(toolVersion: "test").build(first)
        #expect(report.target.restarts == 1)
        #expect(report.target.exited == false)
        #expect(report.stalls.map(\.pid) == [100, 200])
        #expect(report.stalls.first?.durationNs == 300 * ms, "the first one's open stall ends at its death")
        #expect(report.stalls.first?.ongoingAtExit == true)
        #expect(report.processes?.map(\.pid) == [100, 200])
        #expect(report.processes?.first?.endNs == 1_000 * ms)
        #expect(report.processes?.last?.endNs == nil)
    }
}
