import Testing

@testable import LagmonCore

/// A saved report can say anything (`lagmon report`, `diff` and `check` load files from
/// anywhere): numbers out of range make no writer trap. Cases the report fuzzer found.
struct HostileReportTests {
    @Test func aStartInTheYear6277HasNoPprofTime() {
        #expect(PprofWriter.epochNanoseconds("6277-11-23T19:56:00.291Z") == 0)
        #expect(PprofWriter.epochNanoseconds("2026-11-23T19:56:00.291Z") == 1_795_463_760_291_000_000)
    }

    @Test func speedscopeSharesOfHugeOrNegativeCountsDoNotTrap() {
        #expect(SpeedscopeWriter.shares(of: 10, counts: [-5, 1]) == [0, 10])
        let huge = SpeedscopeWriter.shares(of: 1_000, counts: [Int.max, Int.max, 3])
        #expect(huge.reduce(0, +) <= 1_000)
        #expect(SpeedscopeWriter.shares(of: UInt64.max, counts: [Int.max, 1]).count == 2)
    }

    @Test func percentagesNoInt64HoldsAreWrittenAsTheyAre() {
        #expect(DurationText.fixed(-9.223372036854776e+19, digits: 1) == "-9.223372036854776e+19")
        #expect(DurationText.fixed(.infinity, digits: 2) == "inf")
        #expect(DurationText.fixed(.nan, digits: 0) == "nan")
        #expect(DurationText.fixed(12.345, digits: 1) == "12.3")
    }

    @Test func aTimeAxisOverTheWholeClockHasTicks() {
        #expect(!TimeAxis(spanNs: .max, width: 800).ticks().isEmpty)
    }
}
