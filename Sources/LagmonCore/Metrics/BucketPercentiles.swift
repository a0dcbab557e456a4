/// Percentiles straight from `LatencyBuckets` counts: a walk over the non-empty buckets, cheap
/// enough for every loop at every scrape (building an HdrHistogram per loop is not).
public enum BucketPercentiles {
    /// The value standing for the bucket that holds the `percentile`th value (nearest rank);
    /// 0 without values. Within a bucket's width (under 0.8 %) of the exact percentile.
    public static func valueNs(_ counts: [Int: UInt64], percentile: Double) -> UInt64 {
        let nonEmpty = counts.filter { $0.value > 0 }.sorted { $0.key < $1.key }
        let total = nonEmpty.reduce(UInt64(0)) { $0 &+ $1.value }
        guard total > 0 else { return 0 }
        let rank = max(1, UInt64((percentile / 100 * Double(total)).rounded(.up)))
        var seen: UInt64 = 0
        for (index, count) in nonEmpty {
            seen &+= count
            if seen >= rank { return LatencyBuckets.representative(of: index) }
        }
        return LatencyBuckets.representative(of: nonEmpty[nonEmpty.count - 1].key)
    }
}
