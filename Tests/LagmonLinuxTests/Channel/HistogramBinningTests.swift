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

    /// The Swift job path bins its lengths (always below the last value) without the cap.
    @Test func theUncappedBinningAgreesUpToTheLastValue() {
        let last: UInt64 = (2 << 43) - 1
        var values: [UInt64] = Array(0...4096) + [last - 1, last]
        var value: UInt64 = 4097
        while value < last {
            values += [value - 1, value, value + 1]
            value = value * 3 / 2 + 7
        }
        for value in values {
            #expect(lagmon_histogram_index_bounded(value) == lagmon_histogram_index(value), "value \(value)")
        }
        #expect(Int(lagmon_histogram_index_bounded(last)) == LatencyBuckets.count - 1)
    }
}
