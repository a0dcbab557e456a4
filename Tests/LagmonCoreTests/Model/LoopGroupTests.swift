import Testing

@testable import LagmonCore

/// NIO event loop groups and the cooperative pool are shown as one line each.
struct LoopGroupTests {
    static func loop(_ tid: Int32, _ name: String, observer: String = "waitcall", stalls: Int = 0) -> LoopReport {
        LoopReport(
            thread: ThreadRef(tid: tid, name: name), pid: 100, observer: observer, iterations: 10, transitions: 20,
            busyNs: 100, observedNs: 1000,
            latency: LatencySummary(count: 10, p50Ns: 10, p90Ns: 40, p99Ns: 50, maxNs: 50), stallCount: stalls)
    }

    @Test func nioThreadsOfOneGroupAreOneLine() {
        let loops = [
            Self.loop(100, "app"), Self.loop(102, "NIO-ELT-1-#1", stalls: 1), Self.loop(101, "NIO-ELT-1-#0"),
            Self.loop(103, "NIO-ELT-2-#0"), Self.loop(104, "NIO-ELT-x"), Self.loop(105, "NIO-SGLTN-1-#2"),
            Self.loop(106, "NIO-SGLTN-1-#1"),
        ]
        let groups = LoopGroup.groups(loops)
        #expect(groups.map(\.name) == [nil, "NIO-ELT-1-#*", "NIO-ELT-2-#*", nil, "NIO-SGLTN-1-#*"])
        #expect(groups[4].loops.map(\.thread.tid) == [105, 106])
        #expect(groups[1].loops.map(\.thread.tid) == [102, 101])
        #expect(
            groups[1].summary
                == "NIO-ELT-1-#* (2 event loops: threads 101, 102): 20 iterations, busy 10.0% · longest busy period 50ns · 1 stall"
        )
    }

    @Test func poolThreadsAreOneLine() {
        let loops = [
            Self.loop(201, "oot.default-qos", observer: LoopObserver.swiftPool),
            Self.loop(202, "main-actor", observer: LoopObserver.swiftMainActor),
            Self.loop(203, "oot.default-qos", observer: LoopObserver.swiftPool),
        ]
        let groups = LoopGroup.groups(loops)
        #expect(groups.map(\.name) == ["Swift cooperative pool", nil])
        #expect(groups[0].summary.hasPrefix("Swift cooperative pool (2 threads: threads 201, 203)"))
    }

    /// Counts come from the channel, which the target can write: sums saturate instead of
    /// trapping (the live hostile fuzzer crashed lagmon here, an arithmetic overflow in the
    /// terminal summary, before the report was written).
    @Test func hugeCountsSaturate() {
        var first = Self.loop(101, "NIO-ELT-1-#0")
        var second = Self.loop(102, "NIO-ELT-1-#1")
        for index in [0, 1] {
            var loop = index == 0 ? first : second
            loop.iterations = UInt64.max - 1
            loop.busyNs = UInt64.max - 1
            loop.observedNs = UInt64.max - 1
            if index == 0 { first = loop } else { second = loop }
        }
        let summary = LoopGroup.groups([first, second])[0].summary
        #expect(summary.contains("\(UInt64.max) iterations, busy 100.0%"), "\(summary)")
    }
}
