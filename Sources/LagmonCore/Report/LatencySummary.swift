import Histogram

/// Percentiles of a loop's busy periods (from waking or entry to the next before-waiting or
/// exit). Durations are integer nanoseconds.
public struct LatencySummary: Codable, Sendable, Equatable {
    /// Busy periods recorded.
    public var count: UInt64
    /// Median busy period.
    public var p50Ns: UInt64
    /// 90th percentile.
    public var p90Ns: UInt64
    /// 99th percentile.
    public var p99Ns: UInt64
    /// Longest busy period (exact, not binned).
    public var maxNs: UInt64

    public init(count: UInt64, p50Ns: UInt64, p90Ns: UInt64, p99Ns: UInt64, maxNs: UInt64) {
        self.count = count
        self.p50Ns = p50Ns
        self.p90Ns = p90Ns
        self.p99Ns = p99Ns
        self.maxNs = maxNs
    }

    /// Summarises `histogram`; percentiles never exceed the exact maximum `maxNs`.
    public init(histogram: Histogram<UInt64>, maxNs: UInt64) {
        let count = histogram.totalCount
        func percentile(_ p: Double) -> UInt64 {
            count == 0 ? 0 : min(histogram.valueAtPercentile(p), maxNs)
        }
        self.init(
            count: count, p50Ns: percentile(50), p90Ns: percentile(90), p99Ns: percentile(99),
            maxNs: count == 0 ? 0 : maxNs)
    }
}
