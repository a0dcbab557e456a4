import LagmonCore
import Testing

struct CPUSeriesTests {
    @Test func pointsAreRelativeToTheOriginInPercentOfACore() {
        var series = CPUSeries()
        series.append(endNs: 1_250_000_000, ticks: 25, wallNs: 250_000_000)
        series.append(endNs: 1_500_000_000, ticks: 0, wallNs: 250_000_000)
        #expect(
            series.points(originNs: 1_000_000_000, ticksPerSecond: 100) == [
                CPUPoint(atNs: 250_000_000, pct: 100), CPUPoint(atNs: 500_000_000, pct: 0),
            ])
    }

    @Test func longRunsStayBoundedAndKeepTheirTotals() {
        var series = CPUSeries(maxPoints: 10)
        for index in 1...1_000 { series.append(endNs: UInt64(index) * 10, ticks: UInt64(index % 2), wallNs: 10) }
        let points = series.points(originNs: 0, ticksPerSecond: 100)
        #expect(points.count <= 10 && points.count >= 5)
        #expect(points.last?.atNs == 10_000)
        // Every point covers the same time, so the mean of the points is the overall mean.
        let mean = points.map(\.pct).reduce(0, +) / Double(points.count)
        let overall = 500.0 * 1e11 / (100 * 10_000)
        #expect(abs(mean - overall) < 1e-6 * overall)
    }

    @Test func theTrackerKeepsASeriesPerThread() {
        var tracker = ThreadCPUTracker(configuration: .init(ticksPerSecond: 100, targetStartNs: 1_000))
        let reading = { (ticks: UInt64) in [ThreadCPUReading(tid: 7, name: "main", state: .running, cpuTicks: ticks)] }
        _ = tracker.record(reading(0), atNs: 1_000)
        _ = tracker.record(reading(10), atNs: 1_000 + 100_000_000)
        _ = tracker.record(reading(15), atNs: 1_000 + 200_000_000)
        #expect(tracker.latestPct(of: 7) == 50)
        #expect(
            tracker.reports().first?.cpuSeries == [
                CPUPoint(atNs: 100_000_000, pct: 100), CPUPoint(atNs: 200_000_000, pct: 50),
            ])
    }
}
