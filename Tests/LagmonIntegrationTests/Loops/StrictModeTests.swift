import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// StrictMode: blocking calls on a watched loop's thread are counted by the preload probe, by call
/// and call site, even when none stalls the loop; the same calls on a thread that runs no loop,
/// and the loop's normal business (its eventfd, a non-blocking connect, a WNOHANG wait), are not.
/// lagmon-strict-fixture logs how many calls of each kind its loop made.
@Suite(.serialized)
struct StrictModeTests {
    /// The function of lagmon-strict-fixture each call is made from.
    static let sites: [String: String] = [
        "read": "strict_file_io_on_loop", "pread": "strict_file_io_on_loop", "write": "strict_file_io_on_loop",
        "pwrite": "strict_file_io_on_loop", "fsync": "strict_file_io_on_loop", "fdatasync": "strict_file_io_on_loop",
        "open": "strict_file_io_on_loop", "openat": "strict_file_io_on_loop", "getaddrinfo": "strict_resolve_on_loop",
        "connect": "strict_connect_on_loop", "sleep": "strict_sleep_on_loop", "usleep": "strict_sleep_on_loop",
        "nanosleep": "strict_sleep_on_loop", "clock_nanosleep": "strict_sleep_on_loop",
        "waitpid": "strict_children_on_loop", "wait4": "strict_children_on_loop", "system": "strict_children_on_loop",
        "popen": "strict_children_on_loop", "readv": "strict_file_io_on_loop", "writev": "strict_file_io_on_loop",
        "preadv": "strict_file_io_on_loop", "pwritev": "strict_file_io_on_loop",
    ]

    /// The fixture's `strict-truth` line: calls of each kind its loop made.
    static func truth(_ stdout: String) throws -> [String: UInt64] {
        let line = try #require(stdout.split(separator: "\n").first { $0.hasPrefix("strict-truth ") })
        var counts: [String: UInt64] = [:]
        for pair in line.split(separator: " ").dropFirst() {
            let parts = pair.split(separator: "=")
            counts[String(parts[0])] = UInt64(parts[1])
        }
        return counts
    }

    @Test func everyBlockingCallOnTheLoopThreadIsCountedAtItsSiteAndNoneOffIt() throws {
        let path = NSTemporaryDirectory() + "lagmon-strict-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try LagmonProcess.run(
            ["run", "--json", path, "--warn", "strict.count < 1", "--", Binaries.strictFixture], json: false)
        #expect(result.status == 0)
        let report = try JSONDecoder().decode(Report.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        try ReportSchema.validate(path: path)
        let truth = try Self.truth(result.stdout)
        #expect(Set(truth.keys) == Set(BlockingCall.allCases.map(\.name)))
        // The worker thread made the same calls from the same sites: none may be counted.
        #expect(result.stdout.contains("strict-off-loop calls=24"))
        #expect(report.config.strict == true)
        let calls = try #require(report.blockingCalls)
        #expect(report.blockingCallsUnrecorded == 0)
        var counted: [String: UInt64] = [:]
        for call in calls {
            counted[call.call, default: 0] += call.count
            #expect(call.pid == report.target.pid)
            #expect(call.thread.tid == report.target.pid, "\(call.call) counted on thread \(call.thread.tid)")
            #expect(call.site.symbol == Self.sites[call.call], "\(call.call) from \(call.site.displayName)")
            #expect(call.site.module == "lagmon-strict-fixture")
            #expect(call.maxNs <= call.totalNs)
            #expect(call.category == BlockingCall.allCases.first { $0.name == call.call }?.category)
        }
        #expect(counted == truth)
        let total = truth.values.reduce(0, +)
        #expect(result.lagmonLines.contains { $0.contains("\(total) blocking calls on loop threads (StrictMode)") })
        let budget = try #require(report.budgets?.first)
        #expect(budget.metric == "strict.count")
        #expect(budget.measured == Double(total))
        #expect(!budget.passed)
    }

    /// A program not written for it: Node.js's `fs.readFileSync` and `fs.writeFileSync` in a
    /// timer callback run libuv's file calls on the loop thread, counted at libuv's call sites.
    @Test func nodeSyncFileCallsAreCountedOnItsLoopThread() throws {
        let file = temporaryPath("node-sync.out")
        defer { unlink(file) }
        let result = try LagmonProcess.run(["run", "--", "node", WaitCallLoopTests.nodeFixture, "files", file])
        #expect(result.status == 0)
        #expect(result.stdout.contains("sync-files 5"), "\(result.stdout)")
        let report = try #require(result.report)
        let calls = try #require(report.blockingCalls)
        func count(_ name: String) -> UInt64 { calls.filter { $0.call == name }.reduce(0) { $0 + $1.count } }
        // Each readFileSync and writeFileSync opens the file once; reads and writes at least once.
        #expect(count("open") >= 10, "\(calls.map { "\($0.call) ×\($0.count) at \($0.site.displayName)" })")
        #expect(count("read") + count("pread") + count("preadv") >= 5)
        #expect(count("write") + count("pwrite") + count("pwritev") >= 5)
        #expect(calls.allSatisfy { $0.thread.tid == report.target.pid && $0.category == "file" })
        #expect(result.lagmonLines.contains { $0.contains("blocking calls on loop threads (StrictMode)") })
    }

    /// A program not written for it: the naive image list (a CFRunLoop, observed by the preload
    /// probe) reads each row's image with `Data(contentsOf:)` on the main thread, in a timer
    /// callback: one open per row it says it showed, called from Foundation.
    @Test func aFoundationRunLoopsFileReadsAreCountedOnItsMainThread() throws {
        let result = try LagmonProcess.run(["run", "--", Binaries.demo, "--scenario", "naive"])
        #expect(result.status == 0)
        let report = try #require(result.report)
        #expect(report.loops.first?.observer == "cfrunloop")
        let rows = result.stdout.split(separator: "\n").filter { $0.hasPrefix("lagmon-demo: row ") }.count
        #expect(rows == 6)
        let calls = try #require(report.blockingCalls)
        let opens = calls.filter { $0.call == "open" }
        #expect(opens.reduce(0) { $0 + $1.count } == UInt64(rows), "\(opens)")
        #expect(calls.filter { $0.call == "read" }.reduce(0) { $0 + $1.count } >= UInt64(rows))
        #expect(calls.allSatisfy { $0.thread.tid == report.target.pid && $0.category == "file" }, "\(calls)")
        #expect(calls.allSatisfy { $0.site.module.hasPrefix("libFoundation") }, "\(calls.map(\.site))")
    }

    /// More call sites than the probe's table holds: the first 32 are listed, the rest counted.
    @Test func callSitesBeyondTheTableAreCountedNotListed() throws {
        let result = try LagmonProcess.run([
            "run", "--warn", "strict.count < 1", "--", Binaries.strictFixture, "many-sites",
        ])
        #expect(result.status == 0)
        #expect(result.stdout.contains("strict-sites calls=40"))
        let report = try #require(result.report)
        let calls = try #require(report.blockingCalls)
        #expect(calls.count == 32)
        #expect(calls.allSatisfy { $0.call == "sleep" && $0.count == 1 })
        #expect(Set(calls.map(\.site.address)).count == 32)
        // (No symbols asserted: this run may end before lagmon could read its memory map.)
        #expect(report.blockingCallsUnrecorded == 8)
        #expect(report.budgets?.first?.measured == 40)
        #expect(result.lagmonLines.contains { $0.contains("40 blocking calls on loop threads") })
        #expect(
            result.lagmonLines.contains { $0.contains("8 more from call sites beyond what the probe's table holds") })
    }

    @Test func noStrictCountsNothing() throws {
        let result = try LagmonProcess.run(["run", "--no-strict", "--", Binaries.strictFixture])
        #expect(result.status == 0)
        let report = try #require(result.report)
        #expect(try Self.truth(result.stdout)["read"] == 2)
        #expect(report.loops.count == 1)
        #expect(report.config.strict == nil)
        #expect(report.blockingCalls == nil)
        #expect(report.blockingCallsUnrecorded == nil)
        #expect(!result.lagmonLines.contains { $0.contains("StrictMode") })
    }
}
