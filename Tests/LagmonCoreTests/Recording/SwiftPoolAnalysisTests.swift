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

    @Test func noPoolThreadsNoReport() {
        #expect(SwiftPoolAnalysis.analyze([], originNs: 0) == nil)
    }
}
