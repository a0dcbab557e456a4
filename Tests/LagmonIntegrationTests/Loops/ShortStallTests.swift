import Foundation
import LagmonTestSupport
import Testing

/// Stalls barely over a short threshold: each must be seen while it lasts (so it is sampled and
/// counted live), not found in the probe's records after it ended.
struct ShortStallTests {
    /// soak-target stays busy 4 ms, then waits 4 ms, 600 times; at `--threshold 2ms` the watchdog
    /// has 2 ms to look while each lasts. Seen only after they ended were every other one while
    /// an ongoing stall was polled every 10 ms, and then a third of them while the watchdog ran
    /// niced: woken on the CPU where the target computed, it waited for the scheduler's next tick
    /// (up to 3.9 ms here). At SCHED_FIFO 1 (root) it wakes within microseconds.
    @Test(.enabled(if: geteuid() == 0, "the watchdog's real-time class needs root or CAP_SYS_NICE"))
    func everyStallOfAShortThresholdIsSeenWhileItLasts() throws {
        let lagmon = try LagmonProcess([
            "run", "--threshold", "2ms", "--", "/usr/bin/python3", Binaries.packageRoot + "/scripts/soak-target", "600",
            "4", "4",
        ])
        _ = try #require(lagmon.waitForLine(containing: "ready"))
        lagmon.write(stdin: "go\n")
        _ = try #require(lagmon.waitForLine(containing: "injected 600"))
        lagmon.send(stdin: "exit\n")
        let result = try lagmon.finish()
        #expect(result.status == 0)
        let report = try #require(result.report)
        #expect(report.stalls.count >= 600, "\(report.stalls.count) stalls")
        let unseen = report.stalls.filter { !$0.seenLive }
        #expect(
            unseen.count * 20 <= report.stalls.count,
            "\(unseen.count) of \(report.stalls.count) seen only after they ended; watchdog \(String(describing: report.watchdog))"
        )
    }
}
