import Testing

@testable import LagmonCore

/// A long attach keeps the first and the longest stalls in full and folds the rest into exact
/// counts: the report's counts, totals and ids still cover every stall.
struct StallRetentionTests {
    static let ms = Fixture.ms

    /// A /proc-watched loop with `lengthsMs.count` stalls (one every second, lengths as given,
    /// threshold 100 ms), folded by `retention` as the watcher folds them: after each stall;
    /// `unseen` stalls (by ordinal) were not noticed live.
    static func recording(
        lengthsMs: [UInt64], retention: StallRetention, unseen: Set<Int> = []
    ) -> (SessionRecording, foldedStarts: [UInt64]) {
        var probe = ProcLoopProbe(thresholdNs: 100 * ms)
        probe.retention = retention
        let base = Fixture.spawnNs
        var noticed: [UInt64: UInt64] = [:]
        var foldedStarts: [UInt64] = []
        probe.record(ProcLoopReading(state: .waiting, beganNs: base, endedNs: base))
        for (index, lengthMs) in lengthsMs.enumerated() {
            let startNs = base + UInt64(index + 1) * 1000 * ms
            let endNs = startNs + lengthMs * ms
            // Readings on either side of each transition at the same instant: the transition is
            // exactly there.
            probe.record(ProcLoopReading(state: .waiting, beganNs: startNs, endedNs: startNs))
            probe.record(ProcLoopReading(state: .busy, beganNs: startNs, endedNs: startNs))
            probe.record(ProcLoopReading(state: .busy, beganNs: endNs, endedNs: endNs))
            probe.record(ProcLoopReading(state: .waiting, beganNs: endNs, endedNs: endNs))
            let recordedStart = probe.stallRecords.last?.startNs ?? 0
            if !unseen.contains(index + 1) { noticed[recordedStart] = recordedStart + 100 * ms }
            foldedStarts += probe.foldStalls { noticed[$0] != nil }
        }
        let loop = probe.recording(
            thread: ThreadRef(tid: 4242, name: "server"), pid: 4242, liveStallNoticedNs: noticed)
        var recording = Fixture.recording(loops: [loop], exit: nil, probe: ProbeStatus())
        recording.attached = AttachedTarget(exited: false)
        recording.endNs = base + UInt64(lengthsMs.count + 2) * 1000 * ms
        recording.procProbe = ProcProbeSettings(intervalNs: 1 * ms, reason: "lagmon attached to a running process")
        return (recording, foldedStarts)
    }

    @Test func foldingKeepsTheFirstAndTheLongest() {
        // Stall n lasts 200 + n ms, except the 15th, which lasts 900 ms.
        var lengths = (1...40).map { 200 + UInt64($0) }
        lengths[14] = 900
        let retention = StallRetention(firstCount: 3, longestCount: 4)
        let (recording, folded) = Self.recording(lengthsMs: lengths, retention: retention)
        let loop = recording.loops[0]
        #expect(retention.foldAt == 11)
        #expect(loop.stallRecords.count < retention.foldAt)
        #expect(loop.stallRecords.count + loop.foldedStalls.count == 40)
        #expect(folded.count == loop.foldedStalls.count)
        let ordinals = loop.stallRecords.compactMap(\.ordinal)
        #expect(Array(ordinals.prefix(3)) == [1, 2, 3], "the first stalls stay")
        #expect(ordinals.contains(15), "the longest stays")
        #expect(Set(ordinals.suffix(4)).isSuperset(of: [39, 40]), "the longest of the latest stay")
        #expect(!ordinals.contains(4), "a short one in the middle was folded")
    }

    @Test func theReportCountsEveryStallExactly() {
        var lengths = (1...40).map { 200 + UInt64($0) }
        lengths[14] = 900
        let (recording, _) = Self.recording(
            lengthsMs: lengths, retention: StallRetention(firstCount: 3, longestCount: 4), unseen: [5, 6, 7])
        let report = ReportBuilder(toolVersion: "1").build(recording)
        #expect(report.summary.stallCount == 40)
        #expect(report.loops.first?.stallCount == 40)
        #expect(report.processes?.first?.stallCount == 40)
        #expect(report.summary.longestStallNs == 900 * Self.ms)
        #expect(report.summary.totalStallNs == lengths.reduce(0, +) * Self.ms)
        #expect(report.summary.blockingNs == lengths.map { $0 - 100 }.reduce(0, +) * Self.ms)
        #expect(report.summary.stallsOmitted == 40 - report.stalls.count)
        // Ids count the folded stalls: each listed stall keeps its number among all 40.
        #expect(report.stalls.map(\.durationNs) == report.stalls.map { lengths[$0.id - 1] * Self.ms })
        #expect(report.stalls.first { $0.durationNs == 900 * Self.ms }?.id == 15)
        // Nearest rank over 40: p50 is the 20th shortest, exact or within its bucket (folded).
        let p50 = Double(report.summary.stallP50Ns)
        let expected = Double(lengths.sorted()[19] * Self.ms)
        #expect(abs(p50 - expected) / expected < 0.004, "\(p50) vs \(expected)")
        #expect(report.summary.stallP99Ns == 900 * Self.ms)
        #expect(recording.loops[0].foldedStalls.unseenCount == 3)
    }

    @Test func withoutRetentionNothingIsFolded() {
        var probe = ProcLoopProbe(thresholdNs: 100 * Self.ms)
        probe.record(ProcLoopReading(state: .waiting, beganNs: 0, endedNs: 0))
        for index in 1...30 {
            let startNs = UInt64(index) * 1000 * Self.ms
            probe.record(ProcLoopReading(state: .busy, beganNs: startNs, endedNs: startNs))
            probe.record(
                ProcLoopReading(state: .waiting, beganNs: startNs + 300 * Self.ms, endedNs: startNs + 300 * Self.ms))
            #expect(probe.foldStalls { _ in true }.isEmpty)
        }
        #expect(probe.stallRecords.count == 30)
        #expect(probe.foldedStalls == FoldedStalls())
    }
}
