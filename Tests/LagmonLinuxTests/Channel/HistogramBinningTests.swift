import CLagmonShared
import LagmonCore
import Testing

/// The observer bins busy periods in C; lagmon reads them back with LatencyBuckets in Swift.
/// The two must agree bucket for bucket.
struct HistogramBinningTests {
    @Test func cAndSwiftBinningAgree() {
        #expect(Int(lagmon_histogram_bucket_count()) == LatencyBuckets.count)
        var values: [UInt64] = Array(0...4096)
        var value: UInt64 = 4097
        while value < UInt64.max / 3 {
            values += [value - 1, value, value + 1]
            value = value * 3 / 2 + 7
        }
        values += [UInt64.max, 1 << 43, (1 << 44) - 1, 1 << 44]
        for value in values {
            #expect(Int(lagmon_histogram_index(value)) == LatencyBuckets.index(of: value), "value \(value)")
        }
    }
}
