import Testing

@testable import LagmonCore

/// The cooperative pool's width, blocked threads and starvation, from pool threads' stalls.
struct SwiftPoolAnalysisTests {
    typealias Thread = SwiftPoolAnalysis.PoolThread

    @Test func starvationIsWhenEveryPoolThreadIsBlocked() throws {
        let threads = [
            Thread(aliveFromNs: 0, aliveUntilNs: 2_000_000_000, blocked: [(100_000_000, 600_000_000)]),
            Thread(aliveFromNs: 50_000_000, aliveUntilNs: 2_000_000_000, blocked: [(200_000_000, 500_000_000)]),
        ]
        let pool = try #require(SwiftPoolAnalysis.analyze(threads, originNs: 10_000_000))
        #expect(pool.width == 2)
        #expect(pool.maxBlockedThreads == 2)
        #expect(pool.starvations == [PoolStarvation(startNs: 190_000_000, durationNs: 300_000_000)])
        #expect(pool.starvedNs == 300_000_000)
        let diagnostic = try #require(SwiftPoolAnalysis.diagnostic(pool))
        #expect(diagnostic.code == "pool-starved")
        #expect(diagnostic.message.contains("all 2 of its threads were blocked at once"))
    }

    @Test func oneBlockedThreadOfTwoIsNotStarvation() throws {
        let threads = [
            Thread(aliveFromNs: 0, aliveUntilNs: 1_000_000_000, blocked: [(100_000_000, 400_000_000)]),
            Thread(aliveFromNs: 0, aliveUntilNs: 1_000_000_000, blocked: []),
        ]
        let pool = try #require(SwiftPoolAnalysis.analyze(threads, originNs: 0))
        #expect(pool.maxBlockedThreads == 1)
        #expect(pool.starvations.isEmpty)
        #expect(SwiftPoolAnalysis.diagnostic(pool) == nil)
    }

    @Test func aHandOverShorterThanAMillisecondIsNotStarvation() throws {
        // One job ends 200 µs after the other thread's next blocking job began.
        let threads = [
            Thread(aliveFromNs: 0, aliveUntilNs: 1_000_000_000, blocked: [(0, 300_200_000)]),
            Thread(aliveFromNs: 0, aliveUntilNs: 1_000_000_000, blocked: [(300_000_000, 700_000_000)]),
        ]
        let pool = try #require(SwiftPoolAnalysis.analyze(threads, originNs: 0))
        #expect(pool.maxBlockedThreads == 2)
        #expect(pool.starvations.isEmpty)
    }

    // MARK: Starts early by up to lagmon's tick (swift-pool stalls)

    /// The concurrency fixture's starved pool as the ticked job path recorded it (2 runs of 3 at
    /// load ~10): thread B's blocked job ends, 0.4 ms later its starving job begins; thread A's
    /// starving job began after B's blocked job ended, but its start is the tick before it,
    /// 3.6 ms before that end. Read exactly, the pool was starved twice (3.6 ms, then 400.8 ms);
    /// with the ticked starts' margin, once, and never shorter than the fixture measured.
    @Test func aStarvationSplitByAnEarlyStartIsOne() throws {
        let threads = [
            Thread(aliveFromNs: 0, aliveUntilNs: 2_000_000_000, blocked: [(296_400_000, 701_200_000)]),
            Thread(
                aliveFromNs: 0, aliveUntilNs: 2_000_000_000,
                blocked: [(0, 300_000_000), (300_400_000, 702_000_000)]),
        ]
        let toleranceNs = SwiftTick.startToleranceNs(thresholdNs: 100_000_000)
        #expect(toleranceNs == 4_000_000)
        let exact = try #require(SwiftPoolAnalysis.analyze(threads, originNs: 0))
        #expect(exact.starvations.map(\.durationNs) == [3_600_000, 400_800_000], "what the margin is for")
        let pool = try #require(SwiftPoolAnalysis.analyze(threads, originNs: 0, startToleranceNs: toleranceNs))
        #expect(pool.starvations == [PoolStarvation(startNs: 296_400_000, durationNs: 404_800_000)])
        #expect(pool.starvedNs == 404_800_000)
        #expect(pool.maxBlockedThreads == 2)
    }

    /// A hand-over between two blocking jobs, the second's start a tick early: the overlap (up to
    /// the margin) is not starvation, as a 200 µs one is not with exact starts.
    @Test func aHandOverOverlappingByAnEarlyStartIsNotStarvation() throws {
        let threads = [
            Thread(aliveFromNs: 0, aliveUntilNs: 1_000_000_000, blocked: [(0, 303_000_000)]),
            Thread(aliveFromNs: 0, aliveUntilNs: 1_000_000_000, blocked: [(300_000_000, 700_000_000)]),
        ]
        let exact = try #require(SwiftPoolAnalysis.analyze(threads, originNs: 0))
        #expect(exact.starvations.count == 1, "what the margin is for")
        let pool = try #require(SwiftPoolAnalysis.analyze(threads, originNs: 0, startToleranceNs: 4_000_000))
        #expect(pool.starvations.isEmpty)
        #expect(pool.maxBlockedThreads == 2)
    }

    /// Starvations further apart than the margin stay apart, and a long one is kept whole.
    @Test func starvationsFurtherApartThanTheMarginStayApart() throws {
        let threads = [
            Thread(
                aliveFromNs: 0, aliveUntilNs: 1_000_000_000, blocked: [(0, 100_000_000), (110_000_000, 300_000_000)]),
            Thread(aliveFromNs: 0, aliveUntilNs: 1_000_000_000, blocked: [(0, 300_000_000)]),
        ]
        let pool = try #require(SwiftPoolAnalysis.analyze(threads, originNs: 0, startToleranceNs: 4_000_000))
        #expect(
            pool.starvations == [
                PoolStarvation(startNs: 0, durationNs: 100_000_000),
                PoolStarvation(startNs: 110_000_000, durationNs: 190_000_000),
            ])
    }

    @Test func noPoolThreadsNoReport() {
        #expect(SwiftPoolAnalysis.analyze([], originNs: 0) == nil)
    }
}
