import LagmonCore
import Testing

/// StrictMode's blocking calls compared between two reports: new, grown and gone, by call and
/// call site over every thread; context only, never failing the diff.
struct BlockingCallChangeTests {
    static func call(_ name: String, _ symbol: String, count: UInt64, totalMs: UInt64, tid: Int32 = 1)
        -> BlockingCallReport
    {
        BlockingCallReport(
            pid: 1, thread: ThreadRef(tid: tid, name: "main"), call: name, category: "file", count: count,
            totalNs: totalMs * 1_000_000, maxNs: totalMs * 1_000_000,
            site: Frame(symbol: symbol, module: "app", offset: 0, address: 1))
    }

    @Test func changesAreNewGrownAndGone() {
        let baseline = [
            Self.call("pread", "load", count: 2, totalMs: 4), Self.call("fsync", "save", count: 1, totalMs: 9),
            Self.call("open", "scan", count: 5, totalMs: 5),
        ]
        let current = [
            // Two threads' calls at one site add up: 12 calls.
            Self.call("pread", "load", count: 10, totalMs: 20),
            Self.call("pread", "load", count: 2, totalMs: 10, tid: 2),
            Self.call("getaddrinfo", "connect_peer", count: 1, totalMs: 40),
            Self.call("open", "scan", count: 5, totalMs: 5),
        ]
        let changes = BlockingCallChange.changes(baseline, current, minChangeNs: 1_000_000)
        #expect(changes.map(\.kind) == [.new, .grown, .gone])
        #expect(changes.map(\.name) == ["getaddrinfo at connect_peer", "pread at load", "fsync at save"])
        #expect(changes[1].change == "2 calls, 4ms → 12 calls, 30ms")
        #expect(changes[0].change == "none → 1 call, 40ms")
        #expect(changes.allSatisfy { $0.check.severity == .info && $0.check.passed })
        #expect(changes[0].check.name == "new blocking call: getaddrinfo at connect_peer")
        // Same count, time grown under the noise floor: no change.
        let slower = [Self.call("open", "scan", count: 5, totalMs: 5)]
        let within = [Self.call("open", "scan", count: 5, totalMs: 5)]
        #expect(BlockingCallChange.changes(slower, within, minChangeNs: 1_000_000).isEmpty)
    }
}
