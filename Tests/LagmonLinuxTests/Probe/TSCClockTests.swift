import CLagmonProbe
import Testing

/// The wait-call probe's counter-based clock (lagmon_tsc_clock.h) against a fake precise clock:
/// a 3 GHz counter, so 3 ticks per nanosecond.
@Suite(.serialized)
struct TSCClockTests {
    /// What the fake precise clock answers, and how often it was asked.
    nonisolated(unsafe) static var preciseNs: UInt64 = 0
    nonisolated(unsafe) static var preciseReads = 0

    static let precise: @convention(c) () -> UInt64 = {
        TSCClockTests.preciseReads += 1
        return TSCClockTests.preciseNs
    }

    /// Reads the clock at `ns` of true time; the counter is 3 ticks per ns from 1,000 ticks.
    func read(_ clock: inout lagmon_tsc_clock, atNs ns: UInt64, preciseSaysNs: UInt64? = nil) -> UInt64 {
        Self.preciseNs = preciseSaysNs ?? ns
        return lagmon_tsc_clock_now(&clock, 1_000 + 3 * ns, Self.precise)
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
}
