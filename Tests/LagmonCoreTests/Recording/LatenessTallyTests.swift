import LagmonCore
import Testing

struct LatenessTallyTests {
    static let ms: UInt64 = 1_000_000

    @Test func startsEmpty() {
        let tally = LatenessTally(toleranceNs: Self.ms)
        #expect(tally.toleranceNs == Self.ms)
        #expect(tally.wakeups == 0)
        #expect(tally.lateWakeups == 0)
        #expect(tally.observerPosts == 0)
        #expect(tally.maxNs == 0)
        #expect(tally.p99Ns == 0)
    }

    @Test func onTimeAndEarlyWakeupsAreNotLate() {
        var tally = LatenessTally(toleranceNs: Self.ms)
        tally.record(deadlineNs: 10 * Self.ms, wokeNs: 10 * Self.ms)
        tally.record(deadlineNs: 10 * Self.ms, wokeNs: 9 * Self.ms)
        #expect(tally.wakeups == 2)
        #expect(tally.lateWakeups == 0)
        #expect(tally.maxNs == 0)
        #expect(tally.p99Ns == 0)
    }

    @Test func latenessExactlyAtTheToleranceIsNotLateOneMoreIs() {
        var tally = LatenessTally(toleranceNs: Self.ms)
        tally.record(deadlineNs: 1_000, wokeNs: 1_000 + Self.ms)
        #expect(tally.lateWakeups == 0)
        tally.record(deadlineNs: 1_000, wokeNs: 1_000 + Self.ms + 1)
        #expect(tally.lateWakeups == 1)
        #expect(tally.wakeups == 2)
        #expect(tally.maxNs == Self.ms + 1)
    }

    @Test func maximumIsExactAndP99NeverAboveIt() {
        var tally = LatenessTally(toleranceNs: Self.ms)
        tally.record(deadlineNs: 0, wokeNs: 1_234_567)
        #expect(tally.maxNs == 1_234_567)
        #expect(tally.p99Ns == 1_234_567)
    }

    @Test func p99IgnoresTheSingleWorstOfAHundred() {
        var tally = LatenessTally(toleranceNs: Self.ms)
        for _ in 0..<99 { tally.record(deadlineNs: 0, wokeNs: 0) }
        tally.record(deadlineNs: 0, wokeNs: 50 * Self.ms)
        #expect(tally.p99Ns == 0)
        #expect(tally.maxNs == 50 * Self.ms)
        tally.record(deadlineNs: 0, wokeNs: 50 * Self.ms)
        // Two of 101 now lie above the 99th percentile rank.
        #expect(tally.p99Ns == 50 * Self.ms)
        #expect(tally.lateWakeups == 2)
    }

    @Test func latenessBeyondTheHistogramRangeKeepsAnExactMaximum() {
        var tally = LatenessTally(toleranceNs: Self.ms)
        let twoHours: UInt64 = 7_200_000_000_000
        tally.record(deadlineNs: 5, wokeNs: 5 + twoHours)
        #expect(tally.maxNs == twoHours)
        #expect(tally.p99Ns <= twoHours)
        #expect(tally.p99Ns >= 3_500_000_000_000)
    }

    @Test func mergeAddsCountsAndKeepsTheWorst() {
        var first = LatenessTally(toleranceNs: Self.ms)
        first.record(deadlineNs: 0, wokeNs: 3 * Self.ms)
        first.record(deadlineNs: 0, wokeNs: 0)
        first.observerPosts = 4
        var second = LatenessTally(toleranceNs: Self.ms)
        for _ in 0..<97 { second.record(deadlineNs: 0, wokeNs: 0) }
        second.record(deadlineNs: 0, wokeNs: 20 * Self.ms)
        second.observerPosts = 6

        first.merge(second)
        #expect(first.wakeups == 100)
        #expect(first.lateWakeups == 2)
        #expect(first.observerPosts == 10)
        #expect(first.maxNs == 20 * Self.ms)
        // 98 on time, one 3 ms late, one 20 ms late: the 99th rank is the 3 ms one.
        #expect(first.p99Ns >= 3 * Self.ms && first.p99Ns < 3 * Self.ms + 3 * Self.ms / 100, "p99 \(first.p99Ns)")
        #expect(first.p99Ns <= first.maxNs)
    }

    @Test func mergingIntoAnEmptyTallyCarriesThePercentiles() {
        var late = LatenessTally(toleranceNs: Self.ms)
        for _ in 0..<98 { late.record(deadlineNs: 0, wokeNs: 0) }
        for _ in 0..<2 { late.record(deadlineNs: 0, wokeNs: 20 * Self.ms) }
        var merged = LatenessTally(toleranceNs: Self.ms)
        merged.merge(late)
        #expect(merged == late)
        #expect(merged.p99Ns == 20 * Self.ms)
    }

    @Test func mergingAnEmptyTallyChangesNothing() {
        var tally = LatenessTally(toleranceNs: Self.ms)
        tally.record(deadlineNs: 0, wokeNs: 2 * Self.ms)
        let before = tally
        tally.merge(LatenessTally(toleranceNs: Self.ms))
        #expect(tally == before)
        #expect(tally.p99Ns == 2 * Self.ms)
    }

    @Test func equalityComparesEveryReportedCount() {
        var first = LatenessTally(toleranceNs: Self.ms)
        var second = LatenessTally(toleranceNs: Self.ms)
        #expect(first == second)
        first.observerPosts = 3
        #expect(first != second)
        second.observerPosts = 3
        #expect(first == second)
        second.record(deadlineNs: 0, wokeNs: 0)
        #expect(first != second)
        #expect(LatenessTally(toleranceNs: 1) != LatenessTally(toleranceNs: 2))
    }
}
