/// The buckets of `lagmon_stall_duration_seconds`: multiples of the threshold (every stall is at
/// least that long) up to 100 times it, plus whole seconds up to a minute, so stalls just over
/// the threshold are told apart and multi-second hangs still land in a bucket.
enum StallBuckets {
    static let thresholdMultiples: [Double] = [1, 1.25, 1.5, 2, 3, 5, 10, 20, 50, 100]
    static let seconds: [Double] = [1, 2.5, 5, 10, 30, 60]

    /// Upper bounds in seconds for threshold `thresholdNs`, ascending and distinct.
    static func bounds(thresholdNs: UInt64) -> [Double] {
        let threshold = Double(thresholdNs) / 1e9
        let all = thresholdMultiples.map { ($0 * threshold * 1e6).rounded() / 1e6 } + seconds
        return Array(Set(all.filter { $0 > 0 })).sorted()
    }
}
