import LagmonCore
import Testing

/// The budget grammar, `METRIC[.STAT] OP VALUE[UNIT]`: what it accepts and, for hostile or
/// mistaken input, the column and the words of the one-line error.
struct BudgetExpressionTests {
    struct Valid: Sendable, CustomStringConvertible {
        var text: String
        var metric: BudgetMetric
        var comparison: BudgetComparison
        var limit: Double
        var normalised: String
        var description: String { text }
    }

    static let valid: [Valid] = [
        Valid(
            text: "stall.max < 250ms", metric: .stallMax, comparison: .lessThan, limit: 250e6,
            normalised: "stall.max < 250ms"),
        Valid(
            text: "stall.max<250ms", metric: .stallMax, comparison: .lessThan, limit: 250e6,
            normalised: "stall.max < 250ms"),
        Valid(
            text: "  stall.total\t<= 1.5s ", metric: .stallTotal, comparison: .lessThanOrEqual, limit: 1.5e9,
            normalised: "stall.total <= 1.5s"),
        Valid(
            text: "stall.count <= 3", metric: .stallCount, comparison: .lessThanOrEqual, limit: 3,
            normalised: "stall.count <= 3"),
        Valid(text: "stall < 3", metric: .stallCount, comparison: .lessThan, limit: 3, normalised: "stall.count < 3"),
        Valid(
            text: "stall.count >= 1", metric: .stallCount, comparison: .greaterThanOrEqual, limit: 1,
            normalised: "stall.count >= 1"),
        Valid(
            text: "stall.p50 < 120ms", metric: .stallPercentile(50), comparison: .lessThan, limit: 120e6,
            normalised: "stall.p50 < 120ms"),
        Valid(
            text: "stall.p90 < 2s", metric: .stallPercentile(90), comparison: .lessThan, limit: 2e9,
            normalised: "stall.p90 < 2s"),
        Valid(
            text: "stall.p99 > 0ns", metric: .stallPercentile(99), comparison: .greaterThan, limit: 0,
            normalised: "stall.p99 > 0ns"),
        Valid(
            text: "latency.p50 < 800us", metric: .latencyPercentile(50), comparison: .lessThan, limit: 800e3,
            normalised: "latency.p50 < 800us"),
        Valid(
            text: "latency.p90 < 800µs", metric: .latencyPercentile(90), comparison: .lessThan, limit: 800e3,
            normalised: "latency.p90 < 800µs"),
        Valid(
            text: "latency.p99 < 16.7ms", metric: .latencyPercentile(99), comparison: .lessThan, limit: 16.7e6,
            normalised: "latency.p99 < 16.7ms"),
        Valid(
            text: "latency < 50ms", metric: .latencyPercentile(99), comparison: .lessThan, limit: 50e6,
            normalised: "latency.p99 < 50ms"),
        Valid(
            text: "latency.max < 1s", metric: .latencyMax, comparison: .lessThan, limit: 1e9,
            normalised: "latency.max < 1s"),
        Valid(
            text: "blocking.total < 500ms", metric: .blockingTotal, comparison: .lessThan, limit: 500e6,
            normalised: "blocking.total < 500ms"),
        Valid(
            text: "blocking < 500 ms", metric: .blockingTotal, comparison: .lessThan, limit: 500e6,
            normalised: "blocking.total < 500ms"),
        Valid(
            text: "blocking.ratio < 5%", metric: .blockingRatio, comparison: .lessThan, limit: 5,
            normalised: "blocking.ratio < 5%"),
        Valid(
            text: "blocking.ratio <= 0.5 %", metric: .blockingRatio, comparison: .lessThanOrEqual, limit: 0.5,
            normalised: "blocking.ratio <= 0.5%"),
        Valid(
            text: "cpu[main].avg < 50%", metric: .cpuAverage(.main), comparison: .lessThan, limit: 50,
            normalised: "cpu[main].avg < 50%"),
        Valid(
            text: "cpu[main] < 50%", metric: .cpuAverage(.main), comparison: .lessThan, limit: 50,
            normalised: "cpu[main].avg < 50%"),
        Valid(
            text: "cpu[*].max <= 90%", metric: .cpuMax(.any), comparison: .lessThanOrEqual, limit: 90,
            normalised: "cpu[*].max <= 90%"),
        Valid(
            text: "cpu[4242].max < 90%", metric: .cpuMax(.tid(4242)), comparison: .lessThan, limit: 90,
            normalised: "cpu[4242].max < 90%"),
        Valid(
            text: "cpu[decoder].avg < 20%", metric: .cpuAverage(.name("decoder")), comparison: .lessThan, limit: 20,
            normalised: "cpu[decoder].avg < 20%"),
        Valid(
            text: "cpu[\"main\"].avg < 20%", metric: .cpuAverage(.name("main")), comparison: .lessThan, limit: 20,
            normalised: "cpu[\"main\"].avg < 20%"),
        Valid(
            text: "cpu['io worker'].avg < 20%", metric: .cpuAverage(.name("io worker")), comparison: .lessThan,
            limit: 20, normalised: "cpu[\"io worker\"].avg < 20%"),
        Valid(
            text: "cpu[\"42\"].avg < 20%", metric: .cpuAverage(.name("42")), comparison: .lessThan, limit: 20,
            normalised: "cpu[\"42\"].avg < 20%"),
        Valid(
            text: "cpu[gmain-ü].avg < 20%", metric: .cpuAverage(.name("gmain-ü")), comparison: .lessThan, limit: 20,
            normalised: "cpu[gmain-ü].avg < 20%"),
    ]

    @Test(arguments: valid)
    func parses(_ example: Valid) throws {
        let expression = try BudgetExpression(parsing: example.text)
        #expect(expression.metric == example.metric)
        #expect(expression.comparison == example.comparison)
        #expect(abs(expression.limit - example.limit) < 1e-6)
        #expect(expression.description == example.normalised)
        // The normalised text means the same thing.
        #expect(try BudgetExpression(parsing: expression.description) == expression)
    }

    struct Invalid: Sendable, CustomStringConvertible {
        var text: String
        var column: Int
        var mentions: [String]
        var description: String { text.debugDescription }
    }

    static let invalid: [Invalid] = [
        Invalid(text: "", column: 1, mentions: ["empty budget", "stall.max < 250ms"]),
        Invalid(text: "   \t ", column: 6, mentions: ["empty budget"]),
        Invalid(text: "stall.max < 25parsecs", column: 15, mentions: ["unknown unit 'parsecs'", "ns, us, ms, s or %"]),
        Invalid(text: "stall.max < 250MS", column: 16, mentions: ["unknown unit 'MS'", "lowercase"]),
        Invalid(text: "stall.max < 250", column: 16, mentions: ["stall.max is a duration", "250ms"]),
        Invalid(text: "stall.max < 25%", column: 15, mentions: ["stall.max is a duration"]),
        Invalid(text: "stall.count < 3ms", column: 16, mentions: ["stall.count is a count", "whole number"]),
        Invalid(text: "stall.count < 2.5", column: 18, mentions: ["stall.count is a count"]),
        Invalid(text: "blocking.ratio < 5", column: 19, mentions: ["percentage", "5%"]),
        Invalid(text: "cpu[main].avg < 50ms", column: 19, mentions: ["percentage"]),
        Invalid(text: "stall.max", column: 10, mentions: ["missing operator after stall.max", "<, <=, > or >="]),
        Invalid(text: "stall.max <", column: 12, mentions: ["missing limit", "250ms"]),
        Invalid(text: "stall.max == 250ms", column: 11, mentions: ["unknown operator '=='"]),
        Invalid(text: "stall.max = 250ms", column: 11, mentions: ["unknown operator '='"]),
        Invalid(text: "stall.max => 250ms", column: 11, mentions: ["unknown operator '=>'"]),
        Invalid(text: "stall.max <> 250ms", column: 11, mentions: ["unknown operator '<>'"]),
        Invalid(text: "stall.max ≤ 250ms", column: 11, mentions: ["write <="]),
        Invalid(text: "stall.max ~ 250ms", column: 11, mentions: ["expected an operator, found '~'"]),
        Invalid(text: "stall.max < -5ms", column: 13, mentions: ["expected a number, found '-5ms'"]),
        Invalid(text: "stall.max < .5s", column: 13, mentions: ["malformed number '.5'"]),
        Invalid(text: "stall.max < 1.s", column: 13, mentions: ["malformed number '1.'"]),
        Invalid(text: "stall.max < 1.2.3s", column: 13, mentions: ["malformed number"]),
        Invalid(text: "stall.max < 1e3ms", column: 14, mentions: ["unknown unit 'e'"]),
        Invalid(text: "stall.max < 12345678901234567890ms", column: 13, mentions: ["too many digits"]),
        Invalid(text: "stall.max < 999999999999s", column: 25, mentions: ["too large"]),
        Invalid(text: "stall.max < ٣ms", column: 13, mentions: ["expected a number"]),
        Invalid(text: "stall.max < 250ms and more", column: 19, mentions: ["unexpected 'and' after the limit"]),
        Invalid(text: "stall.max < 250ms 3", column: 19, mentions: ["unexpected '3'"]),
        Invalid(text: "Stall.max < 250ms", column: 1, mentions: ["unknown metric 'Stall'", "lowercase"]),
        Invalid(
            text: "stalls.max < 250ms", column: 1,
            mentions: ["unknown metric 'stalls'", "stall, latency, blocking, strict or cpu"]),
        Invalid(text: "1stall < 3", column: 1, mentions: ["unknown metric '1stall'"]),
        Invalid(text: "< 250ms", column: 1, mentions: ["unknown metric '<'"]),
        Invalid(
            text: "stall.p95 < 250ms", column: 7, mentions: ["unknown statistic 'p95' for stall", "p50, p90 or p99"]),
        Invalid(text: "stall. < 250ms", column: 7, mentions: ["missing statistic after '.'"]),
        Invalid(text: "latency.count < 3", column: 9, mentions: ["unknown statistic 'count' for latency"]),
        Invalid(text: "stall[main].max < 1s", column: 6, mentions: ["only cpu takes a thread"]),
        Invalid(text: "cpu.avg < 50%", column: 4, mentions: ["cpu needs a thread", "cpu[main]"]),
        Invalid(text: "cpu[].avg < 50%", column: 5, mentions: ["empty thread"]),
        Invalid(text: "cpu[main.avg < 50%", column: 13, mentions: ["missing ']'"]),
        Invalid(text: "cpu[main", column: 9, mentions: ["missing ']'"]),
        Invalid(text: "cpu[\"main].avg < 50%", column: 5, mentions: ["unterminated quote"]),
        Invalid(text: "cpu[a b].avg < 50%", column: 6, mentions: ["missing ']'"]),
        Invalid(text: "cpu[0].avg < 50%", column: 5, mentions: ["thread id 0 is out of range"]),
        Invalid(text: "cpu[99999999999].avg < 50%", column: 5, mentions: ["out of range"]),
        Invalid(text: "cpu[a-name-that-is-too-long].avg < 50%", column: 5, mentions: ["longer than 15 bytes"]),
        Invalid(text: "cpu[\"a\nb\"].avg < 50%", column: 7, mentions: ["control", "\\n"]),
        Invalid(text: "cpu['\u{202E}x'].avg < 50%", column: 6, mentions: ["control"]),
        Invalid(text: "stall.max\u{00A0}< 250ms", column: 10, mentions: ["expected an operator", "\\u{00A0}"]),
        Invalid(text: "stall.max < 250ms\n", column: 18, mentions: ["unexpected '\\n'"]),
        Invalid(text: "stall.max < 250ms\u{0}", column: 18, mentions: ["unexpected '\\0'"]),
        Invalid(text: "stall.max < 2\u{202E}50ms", column: 14, mentions: ["is a duration", "\\u{202E}"]),
        Invalid(text: "stall.max < 250ms; rm -rf /", column: 18, mentions: ["unexpected ';'"]),
        Invalid(text: String(repeating: "x", count: 201), column: 201, mentions: ["too long"]),
    ]

    @Test(arguments: invalid)
    func rejects(_ example: Invalid) {
        #expect {
            try BudgetExpression(parsing: example.text)
        } throws: { error in
            guard let error = error as? BudgetSyntaxError else { return false }
            #expect(error.column == example.column, "\(error)")
            for text in example.mentions { #expect(error.description.contains(text), "\(error) mentions \(text)") }
            #expect(!error.description.contains("\n"), "one line: \(error)")
            return true
        }
    }

    @Test func errorsQuoteTheWholeExpression() {
        #expect(throws: BudgetSyntaxError.self) { try BudgetExpression(parsing: "stall.max < 25parsecs") }
        do {
            _ = try BudgetExpression(parsing: "stall.max < 25parsecs")
        } catch {
            #expect(
                error.description
                    == "invalid budget 'stall.max < 25parsecs' at column 15: unknown unit 'parsecs'; use ns, us, ms, s or %"
            )
        }
    }

    @Test func comparisonsHoldAtTheirEdges() {
        #expect(BudgetComparison.lessThan.holds(249, 250))
        #expect(!BudgetComparison.lessThan.holds(250, 250))
        #expect(BudgetComparison.lessThanOrEqual.holds(250, 250))
        #expect(!BudgetComparison.greaterThan.holds(250, 250))
        #expect(BudgetComparison.greaterThanOrEqual.holds(250, 250))
    }
}
