import LagmonCore
import Testing

struct LoopReportTests {
    private func loop(busyNs: UInt64, observedNs: UInt64) -> LoopReport {
        LoopReport(
            thread: ThreadRef(tid: 1, name: "main"), pid: 1, observer: "cfrunloop", iterations: 0, transitions: 0,
            busyNs: busyNs, observedNs: observedNs,
            latency: LatencySummary(count: 0, p50Ns: 0, p90Ns: 0, p99Ns: 0, maxNs: 0), stallCount: 0)
    }

    @Test func busyRatioIsBusyOverObserved() {
        #expect(loop(busyNs: 250, observedNs: 1_000).busyRatio == 0.25)
        #expect(loop(busyNs: 0, observedNs: 1_000).busyRatio == 0)
    }

    @Test func nothingObservedMeansARatioOfZero() {
        #expect(loop(busyNs: 5, observedNs: 0).busyRatio == 0)
    }

    @Test func anOpenPeriodLongerThanTheObservationCapsAtOne() {
        #expect(loop(busyNs: 1_500, observedNs: 1_000).busyRatio == 1)
    }
}
