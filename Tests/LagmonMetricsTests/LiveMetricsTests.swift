import LagmonCore
import Testing

@testable import LagmonMetrics

/// The exposition of `LiveMetrics`: stalls counted by labels, histogram buckets around the
/// threshold, counters that only grow from running totals.
struct LiveMetricsTests {
    static func stall(_ durationMs: UInt64, _ diagnosis: StallDiagnosis.Kind, loop: String = "main") -> StallEvent {
        StallEvent(
            pid: 10, processName: "app", tid: 10, loopName: loop, durationNs: durationMs * 1_000_000,
            diagnosis: diagnosis)
    }

    static func text(_ metrics: LiveMetrics) -> String {
        String(decoding: metrics.exposition(), as: UTF8.self)
    }

    static func lines(_ metrics: LiveMetrics) -> Set<String> {
        Set(text(metrics).split(separator: "\n").map(String.init))
    }

    @Test func stallsAreCountedByProcessLoopAndDiagnosis() {
        let metrics = LiveMetrics(thresholdNs: 100_000_000)
        metrics.record(Self.stall(150, .cpu))
        metrics.record(Self.stall(250, .cpu))
        metrics.record(Self.stall(120, .io))
        let lines = Self.lines(metrics)
        #expect(lines.contains(#"lagmon_stalls_total{process="app",loop="main",diagnosis="cpu"} 2"#))
        #expect(lines.contains(#"lagmon_stalls_total{process="app",loop="main",diagnosis="io"} 1"#))
        #expect(lines.contains("# TYPE lagmon_stalls_total counter"))
        #expect(lines.contains("# TYPE lagmon_stall_duration_seconds histogram"))
        #expect(lines.contains(#"lagmon_stall_duration_seconds_bucket{process="app",loop="main",le="0.125"} 1"#))
        #expect(lines.contains(#"lagmon_stall_duration_seconds_bucket{process="app",loop="main",le="0.2"} 2"#))
        #expect(lines.contains(#"lagmon_stall_duration_seconds_bucket{process="app",loop="main",le="0.3"} 3"#))
        #expect(lines.contains(#"lagmon_stall_duration_seconds_count{process="app",loop="main"} 3"#))
        #expect(lines.contains("lagmon_stall_threshold_seconds 0.1"))
    }

    /// A stall the /proc probe recorded though the watchdog never saw it is counted when its
    /// record completes (a host agent may never reach its end); the end of the session then
    /// counts only the unseen stalls not counted yet, so the total equals the report's.
    @Test func unseenStallsCountedLiveAreNotCountedAgainAtTheEnd() {
        let metrics = LiveMetrics(thresholdNs: 100_000_000)
        metrics.record(Self.stall(150, .cpu))
        var unseen = Self.stall(130, .unknown)
        unseen.seenLive = false
        metrics.record(unseen)
        metrics.record(unseen)
        #expect(Self.lines(metrics).contains(#"lagmon_stalls_total{process="app",loop="main",diagnosis="unknown"} 2"#))
        // The report lists the three unseen stalls of loop 10 (two counted live) and one of
        // another loop, and a stall still going at the end.
        func listed(_ tid: Int32, seen: Bool = false, ongoing: Bool = false) -> StallReport {
            StallReport(
                id: 1, thread: ThreadRef(tid: tid, name: "main"), startNs: 0, durationNs: 130_000_000,
                activity: .afterWaiting, ongoingAtExit: ongoing, seenLive: seen, pid: 10)
        }
        metrics.recordUnseen(
            [listed(10, seen: true), listed(10), listed(10), listed(10), listed(11), listed(10, ongoing: true)],
            processName: "app")
        let lines = Self.lines(metrics)
        #expect(lines.contains(#"lagmon_stalls_total{process="app",loop="main",diagnosis="unknown"} 4"#), "\(lines)")
        #expect(lines.contains(#"lagmon_stalls_total{process="app",loop="main",diagnosis="cpu"} 1"#))
    }

    /// Culprit time moves as each stall is counted, not only at the end of a session, and adds
    /// up to the stall time: stalls without a culprit under `none`, culprits past the 20th under
    /// `other`.
    @Test func culpritTimeIsCountedWithEachStall() {
        let metrics = LiveMetrics(thresholdNs: 100_000_000)
        var decode = Self.stall(300, .cpu)
        decode.culprit = "decodeImage"
        metrics.record(decode)
        #expect(
            Self.lines(metrics).contains(
                #"lagmon_stall_culprit_seconds_total{process="app",culprit="decodeImage"} 0.3"#))
        metrics.record(decode)
        metrics.record(Self.stall(200, .unknown))
        for index in 0..<21 {
            var other = Self.stall(100, .cpu)
            other.culprit = "function\(index)"
            metrics.record(other)
        }
        let series = Self.lines(metrics).filter { $0.hasPrefix("lagmon_stall_culprit_seconds_total{") }
        #expect(series.contains(#"lagmon_stall_culprit_seconds_total{process="app",culprit="decodeImage"} 0.6"#))
        #expect(series.contains(#"lagmon_stall_culprit_seconds_total{process="app",culprit="none"} 0.2"#))
        #expect(series.contains(#"lagmon_stall_culprit_seconds_total{process="app",culprit="function18"} 0.1"#))
        #expect(series.contains(#"lagmon_stall_culprit_seconds_total{process="app",culprit="other"} 0.2"#), "\(series)")
        #expect(series.count == 22, "20 named, none and other")
    }

    /// A stall whose culprit is named later is reported twice: counted once, its time once.
    @Test func aStallAndItsCulpritTimeReportedApartAreCountedOnce() {
        let metrics = LiveMetrics(thresholdNs: 100_000_000)
        var stall = Self.stall(300, .cpu)
        stall.counts = .stall
        metrics.record(stall)
        #expect(!Self.text(metrics).contains("lagmon_stall_culprit_seconds_total{"))
        stall.counts = .culprit
        stall.culprit = "decodeImage"
        metrics.record(stall)
        let lines = Self.lines(metrics)
        #expect(lines.contains(#"lagmon_stalls_total{process="app",loop="main",diagnosis="cpu"} 1"#))
        #expect(lines.contains(#"lagmon_stall_duration_seconds_count{process="app",loop="main"} 1"#))
        #expect(lines.contains(#"lagmon_stall_culprit_seconds_total{process="app",culprit="decodeImage"} 0.3"#))
    }

    /// `--label`s are on every series (scraped or pushed) but `instance`, which names a pushed
    /// group only; at the end `lagmon_target_up` goes (a push has no target to be up).
    @Test func sessionLabelsAreOnEverySeriesAndTargetUpEndsWithTheSession() {
        let labels = [
            MetricLabel(key: "service", value: "checkout"), MetricLabel(key: "instance", value: "ci"),
            MetricLabel(key: "commit", value: "abc"),
        ]
        let metrics = LiveMetrics(thresholdNs: 100_000_000, labels: labels)
        metrics.record(Self.stall(150, .cpu))
        metrics.update(
            LiveSnapshot(
                processName: "app",
                loops: [
                    LiveLoopTotals(
                        pid: 10, processName: "app", tid: 10, loopName: "main", iterations: 3, busyNs: 1,
                        busyBuckets: [:])
                ],
                threads: [ThreadCPUReading(tid: 10, name: "main", state: .running, cpuTicks: 5)], targetUp: true))
        metrics.recordBlockingCalls([], unrecorded: 1, processName: "app")
        let samples = Self.text(metrics).split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(samples.count > 20)
        for sample in samples {
            #expect(sample.contains(#"{service="checkout",commit="abc""#), "\(sample)")
            #expect(!sample.contains("instance"), "\(sample)")
        }
        #expect(samples.contains(#"lagmon_target_up{service="checkout",commit="abc"} 1.0"#))
        metrics.sessionEnded()
        #expect(!Self.text(metrics).contains("lagmon_target_up"))
    }

    /// A saved report's culprits: the 20 with the most stall time are named, whatever order the
    /// stalls come in; ongoing stalls are not counted (they did not end).
    @Test func aReportsCulpritsAreRankedByStallTime() throws {
        func stall(_ id: Int, _ culprit: String, ms: UInt64, ongoing: Bool = false) -> StallReport {
            var stall = StallReport(
                id: id, thread: ThreadRef(tid: 10, name: "main"), startNs: UInt64(id), durationNs: ms * 1_000_000,
                activity: .afterWaiting, ongoingAtExit: ongoing, seenLive: true, pid: 10)
            stall.culprit = Frame(symbol: culprit, module: "app", offset: 0, address: 1)
            return stall
        }
        // 21 one-stall culprits of 100 ms come first; "hot" stalls twice for 300 ms, later.
        let stalls =
            (0..<21).map { stall($0 + 1, "cold\($0)", ms: 100) } + [
                stall(22, "hot", ms: 300), stall(23, "hot", ms: 300),
            ]
            + [stall(24, "hot", ms: 5000, ongoing: true)]
        let names = LiveMetrics.culpritsByTime(stalls.filter { !$0.ongoingAtExit })
        #expect(names.first == "hot")
        #expect(names.count == 22)
    }

    @Test func blockingCallsAreCountedAndTimedByCall() {
        let metrics = LiveMetrics(thresholdNs: 100_000_000)
        func call(_ name: String, count: UInt64, totalMs: UInt64, line: Int) -> BlockingCallReport {
            let site = Frame(symbol: "load", module: "app", offset: 0, address: 1, line: line)
            return BlockingCallReport(
                pid: 10, thread: ThreadRef(tid: 10, name: "main"), call: name, category: "file", count: count,
                totalNs: totalMs * 1_000_000, maxNs: totalMs * 1_000_000, site: site)
        }
        // Two sites of one call add up; a name no call has (a hand-edited report) is `other`.
        let calls = [
            call("pread", count: 3, totalMs: 30, line: 1), call("pread", count: 1, totalMs: 20, line: 2),
            call("fsync", count: 1, totalMs: 5, line: 3), call("rm -rf", count: 2, totalMs: 1, line: 4),
        ]
        metrics.recordBlockingCalls(calls, unrecorded: 7, processName: "app")
        let lines = Self.lines(metrics)
        #expect(lines.contains(#"lagmon_blocking_calls_total{process="app",call="pread"} 4"#))
        #expect(lines.contains(#"lagmon_blocking_call_seconds_total{process="app",call="pread"} 0.05"#))
        #expect(lines.contains(#"lagmon_blocking_calls_total{process="app",call="fsync"} 1"#))
        #expect(lines.contains(#"lagmon_blocking_calls_total{process="app",call="other"} 9"#))
        #expect(lines.contains("# TYPE lagmon_blocking_calls_total counter"))
        #expect(!Self.text(metrics).contains("rm -rf"))
    }

    @Test func countersGrowByTheDifferenceOfRunningTotals() {
        let metrics = LiveMetrics(thresholdNs: 100_000_000)
        func snapshot(iterations: UInt64, busyNs: UInt64, samples: UInt64) -> LiveSnapshot {
            LiveSnapshot(
                processName: "app",
                loops: [
                    LiveLoopTotals(
                        pid: 10, processName: "app", tid: 10, loopName: "main", iterations: iterations, busyNs: busyNs,
                        busyBuckets: [LatencyBuckets.index(of: 1_000_000): iterations])
                ], stackSamples: samples, targetUp: true)
        }
        metrics.update(snapshot(iterations: 10, busyNs: 500_000_000, samples: 4))
        metrics.update(snapshot(iterations: 25, busyNs: 1_500_000_000, samples: 9))
        // A lower total (never expected) adds nothing rather than going backwards.
        metrics.update(snapshot(iterations: 20, busyNs: 1_000_000_000, samples: 9))
        let lines = Self.lines(metrics)
        #expect(lines.contains(#"lagmon_loop_iterations_total{process="app",loop="main"} 25"#))
        #expect(lines.contains(#"lagmon_loop_busy_seconds_total{process="app",loop="main"} 1.5"#))
        #expect(lines.contains("lagmon_stack_samples_total 9"))
        #expect(lines.contains("lagmon_target_up 1.0"))
        #expect(lines.contains { $0.hasPrefix(#"lagmon_loop_latency_p99_seconds{process="app",loop="main"} 0.00100"#) })
        metrics.update(LiveSnapshot(processName: "app", targetUp: false))
        #expect(Self.lines(metrics).contains("lagmon_target_up 0.0"))
    }

    @Test func restartsAreACounterFromZero() {
        let metrics = LiveMetrics(thresholdNs: 100_000_000)
        metrics.update(LiveSnapshot(processName: "app", targetUp: true))
        #expect(Self.lines(metrics).contains("lagmon_target_restarts_total 0"))
        metrics.update(LiveSnapshot(processName: "app", targetUp: false, restarts: 1))
        metrics.update(LiveSnapshot(processName: "app", targetUp: true, restarts: 2))
        #expect(Self.lines(metrics).contains("lagmon_target_restarts_total 2"))
        #expect(Self.lines(metrics).contains("lagmon_target_up 1.0"))
    }

    @Test func threadCPUSeriesAreBoundedToTheBusiestNamesPlusOther() {
        let metrics = LiveMetrics(thresholdNs: 100_000_000)
        let threads = (1...30).map { index in
            ThreadCPUReading(
                tid: Int32(index), name: "worker-\(index)", state: .running, cpuTicks: UInt64(index) * 1_000_000_000)
        }
        metrics.update(LiveSnapshot(processName: "app", threads: threads, targetUp: true))
        let series = Self.lines(metrics).filter { $0.hasPrefix("lagmon_thread_cpu_seconds_total{") }
        #expect(series.count == 11)
        #expect(series.contains(#"lagmon_thread_cpu_seconds_total{process="app",thread="worker-30"} 30.0"#))
        // Threads 1-20 are not among the ten busiest: 210 s under other.
        #expect(series.contains(#"lagmon_thread_cpu_seconds_total{process="app",thread="other"} 210.0"#))
    }

    @Test func clockTickReadingsBecomeSeconds() {
        let metrics = LiveMetrics(thresholdNs: 100_000_000)
        let reading = ThreadCPUReading(tid: 5, name: "main", state: .running, cpuTicks: 250)
        metrics.update(LiveSnapshot(processName: "app", threads: [reading], cpuTicksPerSecond: 100, targetUp: true))
        #expect(Self.lines(metrics).contains(#"lagmon_thread_cpu_seconds_total{process="app",thread="main"} 2.5"#))
    }
}
