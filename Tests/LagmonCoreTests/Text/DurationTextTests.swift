import Testing

@testable import LagmonCore

struct DurationTextTests {
    // MARK: Parsing

    @Test(
        arguments: [
            ("100ms", 100_000_000),
            ("1.5s", 1_500_000_000),
            ("1s", 1_000_000_000),
            ("250us", 250_000),
            ("250µs", 250_000),
            ("5μs", 5_000),  // Greek mu, as some keyboards type it
            ("42ns", 42),
            ("1ns", 1),
            ("  100ms", 100_000_000),
            ("100ms  ", 100_000_000),
            ("  2.25ms  ", 2_250_000),
            (".5ms", 500_000),
            ("5.ms", 5_000_000),
            ("007ms", 7_000_000),
            ("0.1s", 100_000_000),
            ("1.000000001s", 1_000_000_001),
            ("0.5ns", 1),
            ("9223372036s", 9_223_372_036_000_000_000),
            ("1m", 60_000_000_000),
            ("1.5min", 90_000_000_000),
            ("2h", 7_200_000_000_000),
        ] as [(String, UInt64)])
    func parsesDurationsPeopleType(text: String, nanoseconds: UInt64) throws {
        #expect(try DurationText.parseNanoseconds(text) == nanoseconds)
    }

    @Test(arguments: [
        "5parsecs", "ms", "s", "-5ms", "+5ms", "1e3ms", "1.2.3ms", "", " ", "   ", "0ms", "0.0s",
        ".ms", "..5ms", "0.4ns", "100", "100 ms", "100MS", "100Ms", "100M", "99999999999999999999s",
        "9223372037s", String(repeating: "9", count: 400) + "s", "٣ms", "１ms", "3٣ms", "infms", "nanms",
        "0x10ms", "1_000ms", "1,5s", "5ms5", "ms5", "\u{0}5ms", "5ms\n",
    ])
    func rejectsHostileText(text: String) {
        #expect(throws: DurationText.InvalidDuration(text: text)) {
            try DurationText.parseNanoseconds(text)
        }
    }

    @Test func theErrorNamesTheUnitsAndAnExample() {
        let error = DurationText.InvalidDuration(text: "5parsecs")
        #expect(error.description == "use a number with a unit: ns, us, ms, s, m or h (for example 100ms or 1m)")
        #expect(error.text == "5parsecs")
    }

    @Test(arguments: ["0ms", "0.0s", "0.4ns", " 0us "])
    func aZeroDurationIsNamedAsSuch(text: String) {
        #expect(DurationText.InvalidDuration(text: text).description == "must be longer than 0 (for example 100ms)")
    }

    // MARK: Formatting

    @Test(
        arguments: [
            (0, "0ns"),
            (1, "1ns"),
            (999, "999ns"),
            (1_000, "1µs"),
            (1_500, "1.5µs"),
            (1_234, "1.23µs"),
            (9_876_543, "9.88ms"),
            (12_345, "12.3µs"),
            (99_940, "99.9µs"),
            (123_456, "123µs"),
            (840_000, "840µs"),
            (999_499, "999µs"),
            (999_500, "1ms"),
            (999_999, "1ms"),
            (1_000_000, "1ms"),
            (1_250_000, "1.25ms"),
            (12_500_000, "12.5ms"),
            (100_000_000, "100ms"),
            (999_499_999, "999ms"),
            (999_500_000, "1.00s"),
            (999_999_999, "1.00s"),
            (1_000_000_000, "1.00s"),
            (1_200_000_000, "1.20s"),
            (1_234_567_890, "1.23s"),
            (61_000_000_000, "61.00s"),
            (3_600_000_000_000, "3600.00s"),
        ] as [(UInt64, String)])
    func formatsWithThreeSignificantDigits(nanoseconds: UInt64, text: String) {
        #expect(DurationText.format(nanoseconds: nanoseconds) == text)
    }

    @Test(
        arguments: [
            (1.2, 2, "1.20"),
            (0.05, 1, "0.1"),
            (3.0, 0, "3"),
            (2.5, 0, "3"),
            (12.345, 3, "12.345"),
            (0.0, 3, "0.000"),
            (4.7, 3, "4.700"),
            (0.007, 3, "0.007"),
            (25.04, 1, "25.0"),
        ] as [(Double, Int, String)])
    func fixedPointNeedsNoLocale(value: Double, digits: Int, text: String) {
        #expect(DurationText.fixed(value, digits: digits) == text)
    }

    @Test func everyParsedDurationFormatsBackToTheSameValueWhenExact() throws {
        for text in ["840µs", "12.5ms", "100ms", "999ns", "1.5µs"] {
            #expect(DurationText.format(nanoseconds: try DurationText.parseNanoseconds(text)) == text)
        }
    }

    @Test(arguments: ["-5ms", "-1m", " -0.5s"])
    func negativeDurationsSaySo(text: String) throws {
        let error = try #require(throws: DurationText.InvalidDuration.self) { try DurationText.parseNanoseconds(text) }
        #expect(error.description == "negative durations are invalid; give a positive one (for example 100ms)")
    }
}
