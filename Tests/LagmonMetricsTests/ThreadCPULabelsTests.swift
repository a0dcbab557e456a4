import LagmonCore
import Testing

struct ThreadCPULabelsTests {
    static func reading(_ tid: Int32, _ name: String, _ ticks: UInt64) -> ThreadCPUReading {
        ThreadCPUReading(tid: tid, name: name, state: .running, cpuTicks: ticks)
    }

    @Test func aNameKeepsItsSeriesOnceGiven() {
        var labels = ThreadCPULabels(maxNamed: 1)
        #expect(labels.increments([Self.reading(1, "a", 100), Self.reading(2, "b", 10)]) == ["a": 100, "other": 10])
        // b is now the busiest, but a keeps the one series.
        #expect(labels.increments([Self.reading(1, "a", 101), Self.reading(2, "b", 500)]) == ["a": 1, "other": 490])
        #expect(labels.named == ["a"])
    }

    @Test func threadsOfOneNameShareTheirSeries() {
        var labels = ThreadCPULabels(maxNamed: 5)
        #expect(labels.increments([Self.reading(1, "pool", 10), Self.reading(2, "pool", 20)]) == ["pool": 30])
    }

    @Test func aReusedThreadIdStartsOverInsteadOfGoingBackwards() {
        var labels = ThreadCPULabels(maxNamed: 5)
        _ = labels.increments([Self.reading(1, "a", 100)])
        #expect(labels.increments([Self.reading(1, "a", 30)]) == ["a": 30])
    }

    @Test func aThreadNamedOtherCountsUnderOther() {
        var labels = ThreadCPULabels(maxNamed: 5)
        #expect(labels.increments([Self.reading(1, "other", 7)]) == ["other": 7])
        #expect(labels.named.isEmpty)
    }

    @Test func loopLabelsShareOtherPastTheBound() {
        var labels = LoopLabels(maxPairs: 2)
        #expect(labels.labels(process: "a", loop: "main").loop == "main")
        #expect(labels.labels(process: "b", loop: "main").process == "b")
        #expect(labels.labels(process: "c", loop: "main") == LoopLabels.Pair(process: "other", loop: "other"))
        #expect(labels.labels(process: "a", loop: "main").process == "a")
    }
}

struct BucketPercentilesTests {
    @Test func percentilesMatchTheHistogramWithinABucket() {
        var counts: [Int: UInt64] = [:]
        var values: [UInt64] = []
        for value in stride(from: UInt64(1_000), through: 5_000_000, by: 997) {
            counts[LatencyBuckets.index(of: value), default: 0] += 1
            values.append(value)
        }
        for percentile in [50.0, 90.0, 99.0] {
            let exact = values[Int((percentile / 100 * Double(values.count)).rounded(.up)) - 1]
            let estimate = BucketPercentiles.valueNs(counts, percentile: percentile)
            #expect(abs(Double(estimate) - Double(exact)) <= Double(exact) / 128, "p\(percentile)")
        }
        #expect(BucketPercentiles.valueNs([:], percentile: 99) == 0)
        #expect(BucketPercentiles.valueNs([5: 3], percentile: 1) == 5)
    }
}
