import CLagmonProbe
import Testing

/// The wait-call probe's counter-based clock (lagmon_tsc_clock.h) against a fake precise clock:
/// a 3 GHz counter, so 3 ticks per nanosecond.
@Suite(.serialized)
struct TSCClockTests {
    /// What the fake precise clock answers, and how often it was asked.
    nonisolated(unsafe) static var preciseNs: UInt64 = 0
    nonisolated(unsafe) static var preciseReads = 0

    /// What the counter reads just after the precise clock.
    nonisolated(unsafe) static var counterAfter: UInt64 = 0

    static let precise: @convention(c) () -> UInt64 = {
        TSCClockTests.preciseReads += 1
        return TSCClockTests.preciseNs
    }

    static let counter: @convention(c) () -> UInt64 = { TSCClockTests.counterAfter }

    /// Reads the clock at `ns` of true time; the counter is 3 ticks per ns from 1,000 ticks. The
    /// precise clock answers `preciseSaysNs` (default `ns`), and the counter read after it is
    /// `afterNs` of true time (default `ns`: the fake's reads take no time, as if never preempted).
    func read(_ clock: inout lagmon_tsc_clock, atNs ns: UInt64, preciseSaysNs: UInt64? = nil, afterNs: UInt64? = nil)
        -> UInt64
    {
        Self.preciseNs = preciseSaysNs ?? ns
        Self.counterAfter = 1_000 + 3 * (afterNs ?? ns)
        return lagmon_tsc_clock_now(&clock, 1_000 + 3 * ns, Self.precise, Self.counter)
    }

    @Test func uncalibratedReadsArePreciseThenTheRateTakesOver() {
        Self.preciseReads = 0
        var clock = lagmon_tsc_clock()
        #expect(read(&clock, atNs: 1_000_000) == 1_000_000)
        #expect(read(&clock, atNs: 5_000_000) == 5_000_000, "4 ms: too soon to measure the rate")
        #expect(clock.rate == 0)
        #expect(read(&clock, atNs: 12_000_000) == 12_000_000)
        #expect(clock.rate != 0, "11 ms after the anchor: the rate is measured")
        #expect(Self.preciseReads == 3)
        // Within the span the counter alone answers, to the nanosecond.
        let extrapolated = read(&clock, atNs: 40_000_123, preciseSaysNs: 0)
        #expect(extrapolated >= 40_000_122 && extrapolated <= 40_000_124, "\(extrapolated)")
        #expect(Self.preciseReads == 3)
    }

    @Test func pastTheSpanThePreciseClockReanchors() {
        var clock = lagmon_tsc_clock()
        _ = read(&clock, atNs: 1_000_000)
        _ = read(&clock, atNs: 20_000_000)
        Self.preciseReads = 0
        // 60 ms later (a long sleep): precise again, even if the counter's rate drifted.
        #expect(read(&clock, atNs: 80_000_000, preciseSaysNs: 80_000_500) == 80_000_500)
        #expect(Self.preciseReads == 1)
        #expect(clock.anchor_ns == 80_000_500)
    }

    @Test func readingsNeverGoBackwards() {
        var clock = lagmon_tsc_clock()
        _ = read(&clock, atNs: 1_000_000)
        _ = read(&clock, atNs: 20_000_000)
        let late = read(&clock, atNs: 69_000_000)
        // The precise clock, re-anchoring, is a little behind the extrapolation.
        let next = read(&clock, atNs: 80_000_000, preciseSaysNs: late - 10)
        #expect(next == late)
    }

    /// A thread preempted between its counter read and the precise read pairs a counter value with
    /// a time milliseconds later: such a pair answers that read but neither anchors the clock nor
    /// measures its rate, which would skew every reading until the next anchor.
    @Test func aPreemptedPreciseReadAnchorsNothing() {
        var clock = lagmon_tsc_clock()
        // The first read: preempted for 4 ms between the counter and the precise clock.
        #expect(read(&clock, atNs: 1_000_000, preciseSaysNs: 5_000_000, afterNs: 5_000_010) == 5_000_000)
        #expect(clock.anchor_ns == 0)
        _ = read(&clock, atNs: 6_000_000)
        #expect(clock.anchor_ns == 6_000_000)
        // The calibrating read, preempted for 5 ms: no rate from it.
        Self.preciseReads = 0
        #expect(read(&clock, atNs: 17_000_000, preciseSaysNs: 22_000_000, afterNs: 22_000_010) == 22_000_000)
        #expect(clock.rate == 0 && clock.anchor_ns == 6_000_000)
        // The next, unpreempted, measures it right: extrapolations are true to the nanosecond.
        _ = read(&clock, atNs: 30_000_000)
        #expect(clock.rate != 0)
        #expect(Self.preciseReads == 2)
        let extrapolated = read(&clock, atNs: 60_000_000, preciseSaysNs: 0)
        #expect(extrapolated >= 59_999_999 && extrapolated <= 60_000_001, "\(extrapolated)")
        #expect(Self.preciseReads == 2)
    }

    /// Past the span, a preempted re-anchoring read answers (readings still never go backwards) and
    /// the clock keeps asking the precise clock until a read is not preempted.
    @Test func pastTheSpanAPreemptedReadLeavesTheAnchor() {
        var clock = lagmon_tsc_clock()
        _ = read(&clock, atNs: 1_000_000)
        _ = read(&clock, atNs: 20_000_000)
        let rate = clock.rate
        Self.preciseReads = 0
        #expect(read(&clock, atNs: 80_000_000, preciseSaysNs: 86_000_000, afterNs: 86_000_010) == 86_000_000)
        #expect(clock.anchor_ns == 20_000_000 && clock.rate == rate)
        #expect(read(&clock, atNs: 87_000_000) == 87_000_000)
        #expect(clock.anchor_ns == 87_000_000)
        #expect(Self.preciseReads == 2)
    }
}
