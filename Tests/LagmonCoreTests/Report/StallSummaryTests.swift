import LagmonCore
import Testing

struct StallSummaryTests {
    static let ms = Fixture.ms

    @Test func noStallsSumToZero() {
        let summary = StallSummary(stalls: [], thresholdNs: 100 * Self.ms)
        #expect([summary.longestStallNs, summary.totalStallNs, summary.blockingNs] == [0, 0, 0])
        #expect(summary.stallCount == 0)
    }

    @Test func blockingIsThePartBeyondTheThreshold() {
        let stalls = [
            Fixture.stall(id: 1, startNs: 0, durationNs: 150 * Self.ms),
            Fixture.stall(id: 2, startNs: 1, durationNs: 100 * Self.ms + 1),
            Fixture.stall(id: 3, startNs: 2, durationNs: 1_100 * Self.ms),
            // Not beyond the threshold (cannot come from the detector, but must not underflow).
            Fixture.stall(id: 4, startNs: 3, durationNs: 40 * Self.ms),
        ]
        let summary = StallSummary(stalls: stalls, thresholdNs: 100 * Self.ms)
        #expect(summary.stallCount == 4)
        #expect(summary.longestStallNs == 1_100 * Self.ms)
        #expect(summary.totalStallNs == 1_390 * Self.ms + 1)
        #expect(summary.blockingNs == 1_050 * Self.ms + 1)
    }
}
