import LagmonCore
import Testing

/// Which samples of a busy period are evidence of its stall: a sampler that fell behind on a
/// loaded machine takes samples after the stall ended, and those must not name its culprit.
struct StallEvidenceTests {
    static let ms = Fixture.ms
    static let start = Fixture.spawnNs + 1 * Fixture.second
    static let spin = Fixture.frame("lagmon_static_fixture_spin", "static-epoll-loop", offset: 0x1200)
    static let wait = Fixture.frame("epoll_wait", "static-epoll-loop", offset: 0x4400)
    static let main = Fixture.frame("main", "static-epoll-loop", offset: 0x1400)
    static let record = StallRecord(startNs: start, endNs: start + 250 * ms, activity: .afterWaiting)

    /// Three samples in the spin, then four taken in a burst after it ended, in the wait call.
    static func loop(observer: String, waitCallStops: Bool) -> LoopRecording {
        var loop = Fixture.loop(
            tid: 100, lastSnapshot: LoopSnapshot(activity: .beforeWaiting, sinceNs: record.endNs),
            stallRecords: [record])
        loop.observer = observer
        let during = [120, 130, 140].map { Fixture.sample(at: start + $0 * ms, [spin, main]) }
        let after = [251, 252, 253, 254].map { offset in
            var sample = Fixture.sample(at: start + UInt64(offset) * ms, [wait, main])
            sample.sample.syscallAtStop = waitCallStops ? 232 : nil
            return sample
        }
        loop.stallSamples = [start: during + after]
        return loop
    }

    @Test func samplesAskedForAfterTheStallEndedAreNotItsEvidence() {
        let loop = Self.loop(observer: "waitcall", waitCallStops: false)
        #expect(
            loop.evidence(of: Self.record).map(\.sample.timestampNs)
                == [120, 130, 140].map { Self.start + $0 * Self.ms })
        let report = ReportBuilder(toolVersion: "1").build(Fixture.recording(loops: [loop]))
        #expect(report.stalls.first?.culprit?.symbol == "lagmon_static_fixture_spin")
        #expect(report.stalls.first?.samples == 3)
        // They were taken all the same: the sampling totals count them.
        #expect(report.sampling.samples == 7)
    }

    @Test func aProcLoopStoppedInItsWaitCallWasNotStalled() {
        // The /proc probe's end can lag the truth (its readings are late on a loaded machine): a
        // sample asked for before that end, but stopped in epoll_wait, is not evidence either.
        var loop = Self.loop(observer: ProcLoopProbe.observerName, waitCallStops: true)
        loop.stallRecords = [
            StallRecord(startNs: Self.start, endNs: Self.start + 300 * Self.ms, activity: .afterWaiting)
        ]
        #expect(loop.evidence(of: loop.stallRecords[0]).count == 3)
        let report = ReportBuilder(toolVersion: "1").build(Fixture.recording(loops: [loop]))
        #expect(report.stalls.first?.culprit?.symbol == "lagmon_static_fixture_spin")
        // A loop watched from inside may block in a nested wait call of its own: that is a stall.
        var inside = loop
        inside.observer = "waitcall"
        #expect(inside.evidence(of: inside.stallRecords[0]).count == 7)
    }

    @Test func aStopInRestartSyscallIsWaitingWhenItSleptInPollBefore() {
        #expect(ProcLoopReading.state(atStopIn: nil, waitChannelBefore: "poll_schedule_timeout") == .busy)
        #expect(ProcLoopReading.state(atStopIn: 232, waitChannelBefore: nil) == .waiting)
        #expect(ProcLoopReading.state(atStopIn: 0, waitChannelBefore: nil) == .busy)
        #expect(
            ProcLoopReading.state(atStopIn: 219, waitChannelBefore: "poll_schedule_timeout.constprop.0") == .waiting)
        #expect(ProcLoopReading.state(atStopIn: 219, waitChannelBefore: "hrtimer_nanosleep") == .resuming)
        #expect(ProcLoopReading.state(atStopIn: 219, waitChannelBefore: nil) == .resuming)
    }
}
