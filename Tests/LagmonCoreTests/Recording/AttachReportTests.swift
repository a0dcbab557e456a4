import Foundation
import Testing

@testable import LagmonCore

/// Reports of loops watched from /proc: `lagmon attach` (no exit status, `attached`) and static
/// targets under `lagmon run`.
struct AttachReportTests {
    static let ms = Fixture.ms

    /// A /proc-watched loop with one 150 ms stall, attached for 5 s.
    static func attachedRecording(exited: Bool = false) -> SessionRecording {
        var probe = ProcLoopProbe(thresholdNs: 100 * ms)
        let base = Fixture.spawnNs
        probe.record(ProcLoopReading(state: .waiting, beganNs: base, endedNs: base))
        probe.record(ProcLoopReading(state: .busy, beganNs: base + 2 * ms, endedNs: base + 2 * ms))
        probe.record(ProcLoopReading(state: .busy, beganNs: base + 150 * ms, endedNs: base + 150 * ms))
        probe.record(ProcLoopReading(state: .waiting, beganNs: base + 152 * ms, endedNs: base + 152 * ms))
        let loop = probe.recording(
            thread: ThreadRef(tid: 4242, name: "server"), pid: 4242,
            liveStallNoticedNs: [base + 1 * ms: base + 101 * ms])
        var recording = Fixture.recording(loops: [loop], exit: nil, probe: ProbeStatus())
        recording.attached = AttachedTarget(exited: exited)
        recording.procProbe = ProcProbeSettings(intervalNs: 1 * ms, reason: "lagmon attached to a running process")
        return recording
    }

    @Test func anAttachedTargetHasNoExitStatus() {
        let report = ReportBuilder(toolVersion: "1").build(Self.attachedRecording())
        #expect(report.target.exitStatus == nil)
        #expect(report.target.signal == nil)
        #expect(report.target.attached == true)
        #expect(report.target.exited == false)
        #expect(report.config.probeIntervalNs == 1 * Self.ms)
        #expect(report.loops.map(\.observer) == ["proc"])
        #expect(report.loops.first?.timingErrorNs == 1 * Self.ms)
        #expect(report.stalls.map(\.durationNs) == [150 * Self.ms])
        #expect(report.stalls.first?.seenLive == true)
        #expect(report.stalls.first?.noticedAfterNs == 100 * Self.ms)
        #expect(report.stalls.first?.startNs == 1 * Self.ms)
    }

    @Test func theJSONOmitsTheExitStatusAndSaysAttached() throws {
        let bytes = try JSONReportWriter().render(
            ReportBuilder(toolVersion: "1").build(Self.attachedRecording(exited: true)))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        let target = try #require(json["target"] as? [String: Any])
        #expect(target["exitStatus"] == nil)
        #expect(target["attached"] as? Bool == true)
        #expect(target["exited"] as? Bool == true)
        let loop = try #require((json["loops"] as? [[String: Any]])?.first)
        #expect(loop["timingErrorNs"] as? Int == 1_000_000)
        #expect((json["config"] as? [String: Any])?["probeIntervalNs"] as? Int == 1_000_000)
        #expect(try JSONReportWriter.decode(bytes).target.attached == true)
    }

    @Test func aStartedTargetKeepsItsExitStatusAndNoAttachFields() throws {
        let bytes = try JSONReportWriter().render(
            ReportBuilder(toolVersion: "1").build(Fixture.recording(loops: [], exit: .exited(3))))
        let target = try #require(
            (try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])?["target"] as? [String: Any])
        #expect(target["exitStatus"] as? Int == 3)
        #expect(target["attached"] == nil)
        #expect(target["exited"] == nil)
    }

    @Test func theProcObserverIsExplainedOnce() throws {
        let report = ReportBuilder(toolVersion: "1").build(Self.attachedRecording())
        let note = try #require(report.diagnostics.first { $0.code == "proc-observer" })
        #expect(note.severity == .info)
        #expect(
            note.message
                == "lagmon attached to a running process, so the loop on thread 4242 was watched from /proc every 1ms: stall starts and ends are within 1ms; a loop that never sleeps in a wait call counts as busy (docs/attach.md)"
        )
        #expect(!report.diagnostics.contains { $0.code == "no-observer" })
    }

    @Test func aThreadNeverSeenWaitingIsWarnedAbout() throws {
        var probe = ProcLoopProbe(thresholdNs: 100 * Self.ms)
        probe.record(ProcLoopReading(state: .busy, beganNs: Fixture.spawnNs, endedNs: Fixture.spawnNs))
        var recording = Self.attachedRecording()
        recording.loops = [probe.recording(thread: ThreadRef(tid: 9, name: "pool"), pid: 4242, liveStallNoticedNs: [:])]
        let report = ReportBuilder(toolVersion: "1").build(recording)
        #expect(report.diagnostics.map(\.code) == ["proc-observer", "no-wait-call"])
        #expect(report.stalls.count == 1)
        #expect(report.stalls.first?.ongoingAtExit == true)
        let waited = ReportBuilder(toolVersion: "1").build(Self.attachedRecording())
        #expect(!waited.diagnostics.contains { $0.code == "no-wait-call" })
    }

    @Test func aProcProbeThatCouldNotReadTheThreadSaysWhy() throws {
        var recording = Fixture.recording(loops: [], probe: ProbeStatus())
        recording.procProbe = ProcProbeSettings(
            intervalNs: 1 * Self.ms, reason: "the target is setuid",
            unavailable: "lagmon may not read /proc/9/task/9/syscall (run lagmon as root or with CAP_SYS_PTRACE)")
        let report = ReportBuilder(toolVersion: "1").build(recording)
        #expect(
            report.diagnostics.map(\.message) == [
                "no observer attached: the target is setuid, and lagmon may not read /proc/9/task/9/syscall (run lagmon as root or with CAP_SYS_PTRACE); no stalls can be reported"
            ])
    }

    @Test func aLateProbeSaysTimesSufferedToo() throws {
        var recording = Self.attachedRecording()
        recording.lateness = Fixture.lateness(maxNs: 30 * Self.ms)
        let late = try #require(
            ReportBuilder(toolVersion: "1").build(recording).diagnostics.first { $0.code == "watchdog-late" })
        #expect(late.message.hasPrefix("lagmon's /proc readings were up to 30ms late"))
    }

    @Test func theSummarySaysAttachedAndWhetherItStillRuns() {
        let writer = TerminalSummaryWriter(style: TerminalStyle(colors: false))
        let running = writer.lines(ReportBuilder(toolVersion: "1").build(Self.attachedRecording()))
        #expect(running.first == "ImageViewer (pid 4242) attached for 5.00s, still running")
        let ended = writer.lines(ReportBuilder(toolVersion: "1").build(Self.attachedRecording(exited: true)))
        #expect(ended.first == "ImageViewer (pid 4242) attached for 5.00s, until it exited")
        #expect(running.contains { $0.hasPrefix("proc loop on thread 4242 \"server\"") })
    }

    @Test func aGateNeverBlamesAnAttachedTargetsStatus() {
        let report = ReportBuilder(toolVersion: "1").build(Self.attachedRecording())
        #expect(GateVerdict(budgets: [], report: report).targetFailure == nil)
    }
}
