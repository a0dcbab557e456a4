import LagmonCore
import Testing

/// Gate metrics read from a report: exact numbers on a hand-made report, and "unavailable"
/// instead of a comforting zero when the report cannot tell.
struct ReportMetricsTests {
    static let ms = Fixture.ms

    static func thread(_ tid: Int32, _ name: String, avg: Double, max: Double) -> ThreadReport {
        ThreadReport(tid: tid, name: name, state: "S", cpu: ThreadCPU(avgPct: avg, maxPct: max, totalNs: 0), alerts: [])
    }

    /// Stalls of 150, 200, 120, 400 and 130 ms at a 100 ms threshold, over 5 s of wall time;
    /// the main thread (tid 4242) and two workers named `decoder`.
    static let report = Fixture.report(
        stalls: [150, 200, 120, 400, 130].enumerated().map { index, duration in
            Fixture.stall(id: index + 1, startNs: UInt64(index) * Fixture.second, durationNs: duration * ms)
        },
        threads: [
            thread(4242, "ImageViewer", avg: 35, max: 80), thread(4250, "decoder", avg: 60, max: 70),
            thread(4251, "decoder", avg: 10, max: 95),
        ])

    @Test(arguments: [
        (BudgetMetric.stallCount, 5.0),
        (.stallMax, 400e6),
        (.stallTotal, 1_000e6),
        (.stallPercentile(50), 150e6),
        (.stallPercentile(90), 400e6),
        (.stallPercentile(99), 400e6),
        (.latencyPercentile(50), 1e6),
        (.latencyPercentile(90), 2e6),
        (.latencyPercentile(99), 3e6),
        (.latencyMax, 4e6),
        (.blockingTotal, 500e6),
        (.blockingRatio, 10),
        (.cpuAverage(.main), 35),
        (.cpuMax(.main), 80),
        (.cpuAverage(.any), 60),
        (.cpuMax(.any), 95),
        (.cpuAverage(.name("decoder")), 60),
        (.cpuMax(.name("decoder")), 95),
        (.cpuAverage(.tid(4251)), 10),
    ])
    func reads(_ metric: BudgetMetric, _ expected: Double) throws {
        let value = try #require(ReportMetrics(Self.report).read(metric).value, "\(metric)")
        #expect(abs(value - expected) < 1e-9, "\(metric): \(value)")
    }

    @Test func latencyIsTheWorstLoop() throws {
        func loop(_ tid: Int32, p99: UInt64, max: UInt64) -> LoopReport {
            LoopReport(
                thread: ThreadRef(tid: tid, name: "loop"), pid: 4242, observer: "cfrunloop", iterations: 1,
                transitions: 4, busyNs: 0, observedNs: 1,
                latency: LatencySummary(count: 1, p50Ns: 1, p90Ns: 2, p99Ns: p99, maxNs: max), stallCount: 0)
        }
        let report = Fixture.report(loops: [
            loop(1, p99: 5 * Self.ms, max: 9 * Self.ms), loop(2, p99: 7 * Self.ms, max: 8 * Self.ms),
        ])
        let metrics = ReportMetrics(report)
        #expect(metrics.read(.latencyPercentile(99)) == .value(7e6))
        #expect(metrics.read(.latencyMax) == .value(9e6))
    }

    @Test func noStallsIsZeroWhenALoopWasObserved() {
        let metrics = ReportMetrics(Fixture.report())
        for metric in [BudgetMetric.stallCount, .stallMax, .stallPercentile(99), .blockingTotal, .blockingRatio] {
            #expect(metrics.read(metric) == .value(0), "\(metric)")
        }
    }

    @Test func withoutAnObservedLoopStallMetricsAreUnavailable() {
        let metrics = ReportMetrics(Fixture.report(loops: []))
        for metric in [BudgetMetric.stallCount, .stallMax, .latencyMax, .blockingRatio] {
            guard case .unavailable(let reason) = metrics.read(metric) else {
                Issue.record("\(metric) should be unavailable")
                continue
            }
            #expect(reason.contains("no run loop was observed"))
        }
    }

    @Test func cpuWithoutThreadsOrMatchesIsUnavailable() {
        let none = ReportMetrics(Fixture.report())
        #expect(none.read(.cpuAverage(.main)).value == nil)
        let metrics = ReportMetrics(Self.report)
        guard case .unavailable(let reason) = metrics.read(.cpuAverage(.name("renderer"))) else {
            Issue.record("no thread is called renderer")
            return
        }
        #expect(reason.contains("no thread matches renderer (3 threads seen)"))
        #expect(metrics.read(.cpuMax(.tid(1))).value == nil)
    }

    @Test func nearestRankPercentiles() {
        // 1…100 ms: p50 is the 50th value, p99 the 99th.
        let stalls = (1...100).map { Fixture.stall(id: $0, startNs: UInt64($0), durationNs: UInt64($0) * Self.ms) }
        let metrics = ReportMetrics(Fixture.report(stalls: stalls))
        #expect(metrics.read(.stallPercentile(50)) == .value(50e6))
        #expect(metrics.read(.stallPercentile(90)) == .value(90e6))
        #expect(metrics.read(.stallPercentile(99)) == .value(99e6))
        let one = ReportMetrics(Fixture.report(stalls: [Fixture.stall(id: 1, startNs: 0, durationNs: 7 * Self.ms)]))
        #expect(one.read(.stallPercentile(50)) == .value(7e6))
    }
}
