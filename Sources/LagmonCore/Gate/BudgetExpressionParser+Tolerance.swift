extension BudgetExpressionParser {
    /// Reads `METRIC:+VALUE[UNIT]` (or `*:+VALUE%`), the argument of `--max-regression`.
    mutating func parseTolerance() throws(BudgetSyntaxError) -> RegressionTolerance {
        guard characters.count <= Self.maximumLength else {
            throw failure(at: Self.maximumLength, "too long: a tolerance is at most \(Self.maximumLength) characters")
        }
        skipSpaces()
        var metric: BudgetMetric?
        if peek == "*" {
            position += 1
        } else {
            guard position < characters.count else {
                throw failure("empty tolerance; write METRIC:+VALUE, for example stall.p99:+10%")
            }
            metric = try parseMetric()
        }
        skipSpaces()
        guard peek == ":" else {
            let found = word(from: position)
            throw failure(
                found: found,
                "expected ':' after the metric, as in stall.p99:+10%\(found.isEmpty ? "" : ", found \(Self.quote(found))")"
            )
        }
        position += 1
        skipSpaces()
        if peek == "-" {
            throw failure(found: "-", "a tolerance is how much worse a metric may get: write it with +, as in +10%")
        }
        if peek == "+" { position += 1 }
        let (allowance, text) = try parseAllowance(for: metric)
        skipSpaces()
        guard position == characters.count else {
            let rest = word(from: position)
            throw failure(found: rest, "unexpected \(Self.quote(rest)) after the tolerance")
        }
        return RegressionTolerance(metric: metric, allowance: allowance, allowanceText: "+" + text)
    }

    private mutating func parseAllowance(for metric: BudgetMetric?) throws(BudgetSyntaxError)
        -> (RegressionTolerance.Allowance, String)
    {
        let numberStart = position
        guard let numberText = try readNumber(), let number = Double(numberText) else {
            let found = word(from: numberStart)
            throw failure(at: numberStart, found: found, "expected an amount like +10% or +20ms")
        }
        skipSpaces()
        let unitStart = position
        while let character = peek, character.isLetter || character == "%" { position += 1 }
        let unit = String(characters[unitStart..<position])
        if unit == "%" { return (.relative(percent: number), numberText + unit) }
        guard let metric else {
            throw failure(at: unitStart, found: unit, "'*' takes a relative tolerance only, such as *:+10%")
        }
        let factors: [String: Double]
        switch metric.dimension {
        case .count: factors = ["": 1]
        case .duration: factors = ["ns": 1, "us": 1e3, "µs": 1e3, "μs": 1e3, "ms": 1e6, "s": 1e9]
        case .percent: factors = ["pp": 1]
        }
        guard let factor = factors[unit], metric.dimension != .count || number.rounded() == number else {
            let absolute =
                switch metric.dimension {
                case .count: "a whole number (+2)"
                case .duration: "a duration (+20ms)"
                case .percent: "percentage points (+0.5pp)"
                }
            throw failure(
                at: unitStart, found: unit,
                "\(metric) takes a relative tolerance (+10%) or \(absolute)\(unit.isEmpty ? "" : ", not \(Self.quote(unit))")"
            )
        }
        return (.absolute(number * factor), numberText + unit)
    }
}
