import Histogram
import LagmonCore
import Testing

struct LatencySummaryTests {
    private func histogram(_ counts: [Int: UInt64]) -> Histogram<UInt64> {
        LatencyBuckets.histogram(from: counts)
    }

    @Test func anEmptyHistogramSummarisesToZerosWhateverTheMaximum() {
        let summary = LatencySummary(histogram: histogram([:]), maxNs: 5_000_000)
        #expect(summary == LatencySummary(count: 0, p50Ns: 0, p90Ns: 0, p99Ns: 0, maxNs: 0))
    }

    @Test func exactValuesGiveExactPercentiles() {
        // 1…100 ns are exact buckets: nearest-rank percentiles come out unchanged.
        var counts: [Int: UInt64] = [:]
        for value in UInt64(1)...100 { counts[LatencyBuckets.index(of: value)] = 1 }
        let summary = LatencySummary(histogram: histogram(counts), maxNs: 100)
        #expect(summary == LatencySummary(count: 100, p50Ns: 50, p90Ns: 90, p99Ns: 99, maxNs: 100))
    }

    @Test func percentilesNeverExceedTheExactMaximum() {
        // One 1 ms period: its bucket's middle (1 001 472) lies above the value itself.
        let summary = LatencySummary(histogram: histogram([LatencyBuckets.index(of: 1_000_000): 1]), maxNs: 1_000_000)
        #expect(
            summary == LatencySummary(count: 1, p50Ns: 1_000_000, p90Ns: 1_000_000, p99Ns: 1_000_000, maxNs: 1_000_000))
    }

    @Test func percentilesFollowTheBulkAndTheMaximumStaysExact() {
        // 98 periods of 1 ms, 2 of 39.9 ms (its bucket's middle, 39 976 960, lies above it).
        let counts: [Int: UInt64] = [
            LatencyBuckets.index(of: 1_000_000): 98, LatencyBuckets.index(of: 39_900_000): 2,
        ]
        let summary = LatencySummary(histogram: histogram(counts), maxNs: 39_900_000)
        #expect(summary.count == 100)
        #expect(summary.maxNs == 39_900_000)
        #expect(summary.p99Ns == 39_900_000)
        #expect(summary.p90Ns == summary.p50Ns)
        #expect(summary.p50Ns >= 999_424 && summary.p50Ns <= 1_010_000, "p50 \(summary.p50Ns)")
    }

    @Test func aMaximumInsideTheTopBucketLeavesTheBinnedPercentile() {
        // 40 ms lies in the upper half of its bucket: the binned p99 (39 976 960 and the
        // histogram's own rounding) stays just below the exact maximum.
        let summary = LatencySummary(histogram: histogram([LatencyBuckets.index(of: 40_000_000): 1]), maxNs: 40_000_000)
        #expect(summary.p99Ns >= 39_976_960 && summary.p99Ns < 40_000_000, "p99 \(summary.p99Ns)")
        #expect(summary.maxNs == 40_000_000)
    }

    @Test func memberwiseInitialiserKeepsFields() {
        let summary = LatencySummary(count: 3, p50Ns: 4, p90Ns: 5, p99Ns: 6, maxNs: 7)
        #expect([summary.count, summary.p50Ns, summary.p90Ns, summary.p99Ns, summary.maxNs] == [3, 4, 5, 6, 7])
    }
}
