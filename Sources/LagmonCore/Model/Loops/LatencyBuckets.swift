import Histogram

/// The log-linear binning the in-target observer uses for busy periods (mirrors
/// `lagmon_histogram_index` in lagmon_channel.h; a test keeps the two equal).
///
/// Values below 128 ns are exact; above, each power of two is split into 128 buckets, so a
/// bucket's width is under 1/128 (0.8 %) of its values.
public enum LatencyBuckets {
    /// Sub-bucket bits after the leading one.
    public static let subBits = 7
    /// Sub-buckets per power of two.
    public static let subCount = 1 << subBits
    /// Highest power of two kept; longer values share the last bucket.
    public static let maxMagnitude = 43
    /// Number of buckets.
    public static let count = subCount * (maxMagnitude - subBits + 2)

    /// The bucket holding `value`.
    public static func index(of value: UInt64) -> Int {
        if value < UInt64(subCount) { return Int(value) }
        let magnitude = 63 - value.leadingZeroBitCount
        if magnitude > maxMagnitude { return count - 1 }
        let sub = Int(value >> UInt64(magnitude - subBits)) & (subCount - 1)
        return subCount * (magnitude - subBits + 1) + sub
    }

    /// The smallest value in bucket `index`.
    public static func lowerBound(of index: Int) -> UInt64 {
        if index < subCount { return UInt64(index) }
        let magnitude = index / subCount + subBits - 1
        let sub = UInt64(index % subCount)
        return (UInt64(1) << UInt64(magnitude)) | (sub << UInt64(magnitude - subBits))
    }

    /// The middle of bucket `index`: the value a bucket's count stands for.
    public static func representative(of index: Int) -> UInt64 {
        if index < subCount { return UInt64(index) }
        let magnitude = index / subCount + subBits - 1
        let halfWidth = (UInt64(1) << UInt64(magnitude - subBits)) / 2
        return lowerBound(of: index) + halfWidth
    }

    /// Builds an HdrHistogram from bucket counts (index → count). The counts are the channel's,
    /// which the target can write: each is capped so that their sum fits in an Int64 (the
    /// histogram adds them up without overflow checks: the live hostile fuzzer aborted lagmon in
    /// `valueAtPercentile`). Honest counts are far below the cap.
    public static func histogram(from counts: [Int: UInt64]) -> Histogram<UInt64> {
        var histogram = Histogram<UInt64>(numberOfSignificantValueDigits: .three)
        histogram.autoResize = true
        let cap = UInt64(Int64.max) / UInt64(max(counts.count, 1))
        for (index, bucketCount) in counts where bucketCount > 0 {
            _ = histogram.record(representative(of: index), count: min(bucketCount, cap))
        }
        return histogram
    }
}
