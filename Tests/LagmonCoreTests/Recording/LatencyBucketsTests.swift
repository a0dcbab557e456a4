import LagmonCore
import Testing

struct LatencyBucketsTests {
    /// Values below, at and around every power of two up to 2^44, every value below 70 000, and a
    /// deterministic pseudo-random spread up to 2^44.
    static let values: [UInt64] = {
        var values = Array(UInt64(0)..<70_000)
        for magnitude in UInt64(7)...44 {
            let power = UInt64(1) << magnitude
            values += [power - 1, power, power + 1, power + power / 2, power + power / 3]
        }
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<50_000 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let magnitude = (seed >> 58) % 45
            values.append((seed >> 6) & ((UInt64(1) << magnitude) - 1 | 1))
        }
        return values.sorted()
    }()

    @Test func layoutConstants() {
        #expect(LatencyBuckets.subCount == 128)
        #expect(LatencyBuckets.count == 4864)
    }

    @Test func valuesBelowTwoSubRangesAreExact() {
        for value in UInt64(0)..<256 {
            let index = LatencyBuckets.index(of: value)
            #expect(index == Int(value))
            #expect(LatencyBuckets.lowerBound(of: index) == value)
            #expect(LatencyBuckets.representative(of: index) == value)
        }
    }

    @Test func knownBuckets() {
        // 1000 = 2^9 + 122·4: bucket 3·128 + 122, four wide.
        #expect(LatencyBuckets.index(of: 1_000) == 506)
        #expect(LatencyBuckets.index(of: 1_003) == 506)
        #expect(LatencyBuckets.index(of: 1_004) == 507)
        #expect(LatencyBuckets.lowerBound(of: 506) == 1_000)
        #expect(LatencyBuckets.representative(of: 506) == 1_002)
        // 1 ms = 2^19 + 116·4096 + 576: bucket 13·128 + 116.
        #expect(LatencyBuckets.index(of: 1_000_000) == 1_780)
        #expect(LatencyBuckets.lowerBound(of: 1_780) == 999_424)
        #expect(LatencyBuckets.representative(of: 1_780) == 1_001_472)
        #expect(LatencyBuckets.index(of: 256) == 256)
        #expect(LatencyBuckets.representative(of: 256) == 257)
    }

    @Test func everyValueLiesInItsBucketAndBucketsAreNarrow() {
        for value in Self.values {
            let index = LatencyBuckets.index(of: value)
            #expect((0..<LatencyBuckets.count).contains(index))
            let lower = LatencyBuckets.lowerBound(of: index)
            #expect(lower <= value, "value \(value)")
            guard index + 1 < LatencyBuckets.count else { continue }
            let upper = LatencyBuckets.lowerBound(of: index + 1)
            #expect(value < upper, "value \(value)")
            let representative = LatencyBuckets.representative(of: index)
            #expect(lower <= representative && representative < upper, "value \(value)")
            guard value >= 128 else { continue }
            let width = upper - lower
            // Under 1/128 of the value; exactly 1/128 only at a power of two, the bucket's start.
            if value.nonzeroBitCount == 1 {
                #expect(width * 128 == value, "value \(value)")
            } else {
                #expect(width * 128 < value, "value \(value)")
            }
        }
    }

    @Test func indicesAreMonotonic() {
        var previous = -1
        for value in Self.values {
            let index = LatencyBuckets.index(of: value)
            #expect(index >= previous, "value \(value)")
            previous = index
        }
    }

    @Test func everyBucketRoundTripsThroughItsLowerBoundAndRepresentative() {
        var previousLower: UInt64? = nil
        for index in 0..<LatencyBuckets.count {
            let lower = LatencyBuckets.lowerBound(of: index)
            #expect(LatencyBuckets.index(of: lower) == index)
            #expect(LatencyBuckets.index(of: LatencyBuckets.representative(of: index)) == index)
            if let previousLower { #expect(lower > previousLower, "index \(index)") }
            previousLower = lower
        }
    }

    @Test func valuesBeyondTheLastMagnitudeShareTheLastBucket() {
        let last = LatencyBuckets.count - 1
        let lastMagnitude = UInt64(1) << 43
        #expect(LatencyBuckets.index(of: lastMagnitude) == LatencyBuckets.count - 128)
        #expect(LatencyBuckets.lowerBound(of: last) == lastMagnitude + 127 << 36)
        #expect(LatencyBuckets.index(of: (UInt64(1) << 44) - 1) == last)
        #expect(LatencyBuckets.index(of: UInt64(1) << 44) == last)
        #expect(LatencyBuckets.index(of: UInt64(1) << 50) == last)
        #expect(LatencyBuckets.index(of: UInt64.max) == last)
    }

    @Test func histogramPercentilesAreWithinOnePercentOfExact() {
        // 20 000 busy periods from 50 µs to about 2 s, skewed towards short ones.
        let data: [UInt64] = (0..<20_000).map { i in
            let x = UInt64(i)
            return 50_000 + x * x * 5 + (x * 7_919) % 1_000
        }
        var counts: [Int: UInt64] = [:]
        for value in data { counts[LatencyBuckets.index(of: value), default: 0] += 1 }
        let histogram = LatencyBuckets.histogram(from: counts)
        #expect(histogram.totalCount == 20_000)

        let sorted = data.sorted()
        for percentile in [1.0, 10, 25, 50, 75, 90, 99, 99.9] {
            let rank = Int((percentile / 100 * Double(sorted.count)).rounded(.up)) - 1
            let exact = Double(sorted[rank])
            let binned = Double(histogram.valueAtPercentile(percentile))
            #expect(abs(binned - exact) <= exact / 100, "p\(percentile): \(binned) vs \(exact)")
        }
    }

    @Test func histogramSkipsEmptyBucketsAndKeepsCounts() {
        let histogram = LatencyBuckets.histogram(from: [5: 3, 506: 0, 1_780: 2])
        #expect(histogram.totalCount == 5)
        #expect(histogram.countForValue(5) == 3)
        #expect(histogram.countForValue(1_002) == 0)
        #expect(histogram.valuesAreEquivalent(histogram.maxRecorded, 1_001_472))
        #expect(LatencyBuckets.histogram(from: [:]).totalCount == 0)
    }

    /// Bucket counts are the channel's (the target can write them): huge ones give percentiles,
    /// not an arithmetic overflow (the live hostile fuzzer aborted lagmon here).
    @Test func hugeBucketCountsArePercentilesNotAnOverflow() {
        let histogram = LatencyBuckets.histogram(from: [5: UInt64.max, 1_780: UInt64.max - 1, 9: 1])
        let summary = LatencySummary(histogram: histogram, maxNs: 2_000_000)
        #expect(summary.count > 0)
        #expect(summary.p99Ns <= 2_000_000)
    }
}
