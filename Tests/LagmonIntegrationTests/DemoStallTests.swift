import Foundation
import LagmonCore
import Testing

/// `lagmon run` on the bundled demo: the stalls it injects, and none where it injects none.
/// Serialized: the stall lengths are wall-clock truths and two demos on two cores would blur them.
@Suite(.serialized)
struct DemoStallTests {
    /// Runs the demo under lagmon and returns the result and the demo's truth.
    func runDemo(_ scenario: String, threshold: String = "100ms", extra: [String] = []) throws
        -> (LagmonResult, [DemoTruth])
    {
        let truthPath = temporaryPath("truth.json")
        defer { try? FileManager.default.removeItem(atPath: truthPath) }
        let result = try LagmonProcess.run(
            ["run", "--threshold", threshold, "--"] + [Binaries.demo, "--scenario", scenario, "--truth", truthPath]
                + extra)
        let truth = (try? DemoTruth.load(truthPath)) ?? []
        return (result, truth)
    }

    @Test func naiveReportsEachInjectedStallWithin10Percent() throws {
        let (result, truth) = try runDemo("naive")
        #expect(result.status == 0)
        let report = try #require(result.report)
        #expect(truth.count == 6)
        #expect(report.stalls.count == truth.count)
        for (stall, injected) in zip(report.stalls, truth) {
            let duration = Double(stall.durationNs)
            let expected = Double(injected.durationNs)
            #expect(abs(duration - expected) <= expected * 0.10, "stall \(stall.id): \(duration) vs \(expected)")
            let start = Double(report.target.monotonicStartNs + stall.startNs)
            let offset = Double(injected.startMonotonicNs - report.target.monotonicStartNs)
            #expect(
                abs(start - Double(injected.startMonotonicNs)) <= max(offset * 0.10, 5e6), "stall \(stall.id) start")
            #expect(stall.activity == "afterWaiting", "the demo decodes in a timer callback, after waking")
            #expect(!stall.ongoingAtExit)
        }
        #expect(report.loops.count == 1)
        #expect(report.loops.first?.observer == "cfrunloop")
        #expect(report.loops.first?.thread.tid == report.target.pid)
        #expect(report.summary.stallCount == 6)
        #expect(report.diagnostics.allSatisfy { $0.code != "no-observer" })
    }

    @Test func naiveLatencyReflectsTheStalls() throws {
        let (result, truth) = try runDemo("naive")
        let loop = try #require(result.report?.loops.first)
        let longest = try #require(truth.map(\.durationNs).max())
        #expect(loop.latency.maxNs >= longest)
        #expect(Double(loop.latency.maxNs) <= Double(longest) * 1.10)
        #expect(loop.latency.count >= 6)
        #expect(loop.busyRatio > 0.5)
    }

    @Test(arguments: ["async", "batched", "idle"])
    func scenariosWithoutMainThreadWorkHaveNoStalls(_ scenario: String) throws {
        let (result, _) = try runDemo(scenario)
        #expect(result.status == 0)
        let report = try #require(result.report)
        #expect(report.loops.count == 1, "observer attached")
        #expect(report.stalls.isEmpty, "stalls: \(report.stalls)")
        #expect(report.loops[0].latency.count > 0)
    }

    @Test func cachedStallsOnlyOnTheFirstPass() throws {
        let (result, truth) = try runDemo("cached")
        let report = try #require(result.report)
        #expect(truth.count == 6)
        #expect(report.stalls.count == 6)
        // Rows appear at least once per 16 ms frame after the last stall: the second and third
        // passes ran, without stalls.
        #expect(result.stdout.components(separatedBy: "shown").count - 1 == 18)
    }

    @Test func batchedTakesLongerThanAsyncButNeverStalls() throws {
        // A loaded machine can starve a slice of CPU past 100 ms: judge at 300 ms.
        let (batched, _) = try runDemo("batched", threshold: "300ms")
        let (async, _) = try runDemo("async")
        let report = try #require(batched.report)
        let asyncReport = try #require(async.report)
        #expect(report.stalls.isEmpty)
        let loop = try #require(report.loops.first)
        // A preempted slice may run long on a loaded machine; the typical one is short, and none
        // comes near the threshold.
        #expect(loop.latency.p90Ns < 20_000_000, "each slice is short")
        #expect(loop.latency.maxNs < report.config.thresholdNs)
        #expect(loop.latency.count > 100, "one busy period per slice")
        // The same decoding on the main thread in slices takes longer than on a worker thread.
        #expect(report.target.wallNs > asyncReport.target.wallNs)
    }

    /// Work done in a before-waiting observer keeps the loop awake after its before-sources
    /// transition: at a 5 ms threshold every 8 ms slice of the batched demo is such a stall.
    @Test func workBeforeSleepingIsABeforeSourcesStall() throws {
        let (result, _) = try runDemo("batched", threshold: "5ms")
        let report = try #require(result.report)
        #expect(report.summary.stallCount > 20, "\(report.summary.stallCount) stalls")
        #expect(report.stalls.allSatisfy { $0.activity == "beforeSources" })
        let sampled = report.stalls.filter { $0.culprit != nil }
        #expect(!sampled.isEmpty)
        // A one-sample stall can catch the slice's bookkeeping after the decode; most name it.
        let decoding = sampled.filter { $0.culprit?.symbol?.contains("decodeImage") == true }
        #expect(decoding.count * 4 >= sampled.count * 3, "\(sampled.compactMap(\.culprit?.symbol))")
    }

    @Test(arguments: [("lock", "waitForThumbnailLock"), ("io", "readThumbnail")])
    func blockingScenariosStallOnce(_ scenario: String, _ function: String) throws {
        let (result, truth) = try runDemo(scenario)
        let report = try #require(result.report)
        #expect(truth.map(\.function) == [function])
        #expect(report.stalls.count == 1)
        let stall = try #require(report.stalls.first)
        let expected = Double(try #require(truth.first).durationNs)
        #expect(abs(Double(stall.durationNs) - expected) <= expected * 0.10)
    }
}
