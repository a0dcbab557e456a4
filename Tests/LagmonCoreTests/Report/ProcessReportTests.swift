import Testing

@testable import LagmonCore

/// `processes[]` and the loops of processes other than the target (`--follow-children`).
struct ProcessReportTests {
    static let ms = Fixture.ms
    static let spawn = Fixture.spawnNs

    /// The target (4242) exec'd once; its child 5000 stalled in a loop and was killed mid-stall
    /// 1 s into the session; another child (5001) ran no loop and outlived the session.
    static let family: SessionRecording = {
        var child = Fixture.loop(
            tid: 5000, name: "worker", claimedNs: spawn + 100 * ms,
            lastSnapshot: LoopSnapshot(activity: .afterWaiting, sinceNs: spawn + 700 * ms))
        child.pid = 5000
        child.observer = "waitcall"
        child.openBusySinceNs = spawn + 700 * ms
        child.endNs = spawn + 1_000 * ms
        var recording = Fixture.recording(loops: [Fixture.loop(tid: 4242), child])
        recording.loopSelection = "main"
        recording.processes = [
            ProcessRecording(
                index: 0, pid: 4242, ppid: 77, command: ["sh", "-c", "exec app"], execed: true,
                attachedNs: spawn + 1 * ms,
                endNs: spawn + 2 * ms),
            ProcessRecording(index: 1, pid: 4242, ppid: 77, command: ["app"], attachedNs: spawn + 3 * ms),
            ProcessRecording(
                index: 2, pid: 5000, ppid: 4242, command: ["app", "--child"], forked: true, attachedNs: spawn + 50 * ms,
                endNs: spawn + 1_000 * ms),
            ProcessRecording(index: 3, pid: 5001, ppid: 4242, command: ["helper"], attachedNs: spawn + 60 * ms),
        ]
        return recording
    }()

    @Test func eachPidIsOneProcessWithItsLastCommandTargetFirst() {
        let report = ReportBuilder(toolVersion: "1").build(Self.family)
        #expect(
            report.processes == [
                ProcessReport(
                    pid: 4242, ppid: 77, command: ["app"], startNs: 1 * Self.ms, execs: 1, loopCount: 1, stallCount: 0),
                ProcessReport(
                    pid: 5000, ppid: 4242, command: ["app", "--child"], startNs: 50 * Self.ms, endNs: 1_000 * Self.ms,
                    loopCount: 1, stallCount: 1),
                ProcessReport(pid: 5001, ppid: 4242, command: ["helper"], startNs: 60 * Self.ms),
            ])
    }

    @Test func aChildsStallStillOpenEndsWhenTheChildEnded() throws {
        let report = ReportBuilder(toolVersion: "1").build(Self.family)
        let stall = try #require(report.stalls.first)
        #expect(report.stalls.count == 1)
        #expect(stall.pid == 5000)
        #expect(stall.thread == ThreadRef(tid: 5000, name: "worker"))
        #expect(stall.ongoingAtExit)
        #expect(stall.startNs == 700 * Self.ms)
        #expect(stall.durationNs == 300 * Self.ms, "to the child's end, not the session's")
        let loop = report.loops[1]
        #expect(loop.observer == "waitcall")
        #expect(loop.observedNs == 900 * Self.ms)
        #expect(loop.busyNs == 300 * Self.ms)
        #expect(loop.stallCount == 1)
    }

    @Test func configSaysWhichLoopsWereAsked() {
        var recording = Self.family
        recording.loopSelection = "main,io-worker"
        #expect(ReportBuilder(toolVersion: "1").build(recording).config.loops == "main,io-worker")
    }

    @Test func aTargetWithoutProbeIsStillListed() {
        let report = ReportBuilder(toolVersion: "1").build(Fixture.recording(loops: []))
        #expect(
            report.processes == [
                ProcessReport(pid: 4242, ppid: nil, command: ["/opt/demo/bin/ImageViewer", "--slow"], startNs: 0)
            ])
    }

    @Test func theReportRoundTripsAndOlderReportsWithoutProcessesStillRead() throws {
        let report = ReportBuilder(toolVersion: "1").build(Self.family)
        let bytes = try JSONReportWriter().render(report)
        #expect(try JSONReportWriter.decode(bytes) == report)
        var older = report
        older.processes = nil
        for index in older.stalls.indices { older.stalls[index].pid = nil }
        #expect(try JSONReportWriter.decode(try JSONReportWriter().render(older)) == older)
    }
}
