/// Reads `METRIC[.STAT] OP VALUE[UNIT]` left to right, one part per function, and stops at the
/// first problem with its column. Never traps: every index is checked, every number bounded.
struct BudgetExpressionParser {
    /// Longer expressions are rejected before parsing (they are mistakes, or hostile).
    static let maximumLength = 200

    private let text: String
    let characters: [Character]
    var position = 0

    init(_ text: String) {
        self.text = text
        self.characters = Array(text.prefix(Self.maximumLength + 1))
    }

    mutating func parse() throws(BudgetSyntaxError) -> BudgetExpression {
        guard characters.count <= Self.maximumLength else {
            throw failure(at: Self.maximumLength, "too long: a budget is at most \(Self.maximumLength) characters")
        }
        skipSpaces()
        guard position < characters.count else {
            throw failure("empty budget; write METRIC OP VALUE, for example stall.max < 250ms")
        }
        let metric = try parseMetric()
        skipSpaces()
        let comparison = try parseComparison(after: metric)
        skipSpaces()
        let (limit, limitText) = try parseLimit(of: metric)
        skipSpaces()
        guard position == characters.count else {
            let rest = word(from: position)
            throw failure(found: rest, "unexpected \(Self.quote(rest)) after the limit; a budget is METRIC OP VALUE")
        }
        return BudgetExpression(metric: metric, comparison: comparison, limit: limit, limitText: limitText)
    }

    // MARK: Metric

    mutating func parseMetric() throws(BudgetSyntaxError) -> BudgetMetric {
        let familyStart = position
        let family = readIdentifier()
        let familyNames = BudgetMetric.families.map(\.name)
        guard let entry = BudgetMetric.families.first(where: { $0.name == family }) else {
            let found = family.isEmpty ? word(from: familyStart) : family
            let hint = familyNames.contains(family.lowercased()) ? " (names are lowercase)" : ""
            throw failure(
                at: familyStart, found: found,
                "unknown metric \(Self.quote(found))\(hint); use stall, latency, blocking, strict or cpu, for example stall.max"
            )
        }
        let thread = try parseThread(family: family, takesThread: entry.takesThread)
        var stat = entry.stats[0]
        if peek == "." {
            position += 1
            let statStart = position
            stat = readIdentifier()
            guard entry.stats.contains(stat) else {
                let found = stat.isEmpty ? word(from: statStart) : stat
                if stat.isEmpty {
                    throw failure(at: statStart, "missing statistic after '.'; use \(Self.list(entry.stats))")
                }
                throw failure(
                    at: statStart, found: found,
                    "unknown statistic \(Self.quote(found)) for \(family); use \(Self.list(entry.stats))")
            }
        }
        guard let metric = BudgetMetric.named(family: family, thread: thread, stat: stat) else {
            throw failure(at: familyStart, "unknown metric \(family).\(stat)")
        }
        return metric
    }

    /// `[THREAD]` after a family that takes one (`cpu`), and only there.
    private mutating func parseThread(family: String, takesThread: Bool) throws(BudgetSyntaxError)
        -> ThreadSelector?
    {
        guard takesThread else {
            if peek == "[" { throw failure(found: "[", "only cpu takes a thread, as in cpu[main].avg") }
            return nil
        }
        guard peek == "[" else {
            throw failure(
                found: peek.map(String.init) ?? "",
                "\(family) needs a thread: cpu[main], cpu[*], cpu[TID] or cpu[NAME], for example cpu[main].avg")
        }
        position += 1
        let start = position
        let selector: ThreadSelector
        if let quote = peek, quote == "\"" || quote == "'" {
            selector = .name(try readQuotedName(quote))
        } else {
            selector = try readPlainThread()
        }
        guard peek == "]" else {
            throw failure(
                found: word(from: position), "missing ']' after the thread that starts at column \(start + 1)")
        }
        position += 1
        return selector
    }

    private mutating func readQuotedName(_ quote: Character) throws(BudgetSyntaxError) -> String {
        let open = position
        position += 1
        guard let close = characters[position...].firstIndex(of: quote) else {
            throw failure(at: open, found: String(quote), "unterminated quote; close the thread name with \(quote)")
        }
        let name = String(characters[position..<close])
        position = close + 1
        try checkThreadName(name, at: open + 1)
        return name
    }

    private mutating func readPlainThread() throws(BudgetSyntaxError) -> ThreadSelector {
        let start = position
        while let character = peek, character != "]", character != "[", character != "\"", character != "'",
            !character.isWhitespace
        {
            position += 1
        }
        let content = String(characters[start..<position])
        switch content {
        case "main": return .main
        case "*": return .any
        case _ where !content.isEmpty && content.allSatisfy(\.isASCIIDigit):
            guard content.count <= 10, let tid = Int32(content), tid > 0 else {
                throw failure(at: start, found: content, "thread id \(content) is out of range (1 to \(Int32.max))")
            }
            return .tid(tid)
        default:
            try checkThreadName(content, at: start)
            return .name(content)
        }
    }

    private func checkThreadName(_ name: String, at column: Int) throws(BudgetSyntaxError) {
        guard !name.isEmpty else {
            throw failure(at: column, "empty thread; use main, *, a thread id or a thread name")
        }
        let invisible = { (character: Character) in
            character.unicodeScalars.contains { [.control, .format].contains($0.properties.generalCategory) }
        }
        if let offset = Array(name).firstIndex(where: invisible) {
            let character = String(Array(name)[offset])
            throw failure(
                at: column + offset, found: character,
                "thread names cannot hold control or format characters such as \(Self.quote(character))")
        }
        guard name.utf8.count <= 15 else {
            throw failure(
                at: column, found: name,
                "thread name \(Self.quote(name)) is longer than 15 bytes, which the kernel never reports; use its first 15 bytes"
            )
        }
    }

    // MARK: Operator

    private mutating func parseComparison(after metric: BudgetMetric) throws(BudgetSyntaxError) -> BudgetComparison {
        let start = position
        while let character = peek, "<>=!≤≥".contains(character) { position += 1 }
        let token = String(characters[start..<position])
        if let comparison = BudgetComparison(rawValue: token) { return comparison }
        if token.isEmpty {
            let found = word(from: start)
            let what = found.isEmpty ? "missing operator" : "expected an operator, found \(Self.quote(found))"
            throw failure(at: start, found: found, "\(what) after \(metric); use <, <=, > or >=")
        }
        let hint = token == "≤" ? " (write <=)" : token == "≥" ? " (write >=)" : ""
        throw failure(at: start, found: token, "unknown operator \(Self.quote(token))\(hint); use <, <=, > or >=")
    }

    // MARK: Limit

    private mutating func parseLimit(of metric: BudgetMetric) throws(BudgetSyntaxError) -> (Double, String) {
        let dimension = metric.dimension
        let numberStart = position
        guard let numberText = try readNumber(), let number = Double(numberText) else {
            let found = word(from: numberStart)
            let what = found.isEmpty ? "missing limit" : "expected a number, found \(Self.quote(found))"
            throw failure(at: numberStart, found: found, "\(what); \(metric) takes \(dimension.example)")
        }
        skipSpaces()
        let unitStart = position
        while let character = peek, character.isLetter || character == "%" { position += 1 }
        let unit = String(characters[unitStart..<position])
        let limit = try scale(number, unit: unit, at: unitStart, for: metric)
        return (limit, numberText + unit)
    }

    /// Digits with at most one `.` between digits; nil when no number starts here.
    mutating func readNumber() throws(BudgetSyntaxError) -> String? {
        let start = position
        while let character = peek, character.isASCIIDigit || character == "." { position += 1 }
        let text = String(characters[start..<position])
        guard !text.isEmpty else { return nil }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, parts.allSatisfy({ !$0.isEmpty }) else {
            throw failure(at: start, found: text, "malformed number \(Self.quote(text)); write digits like 250 or 0.5")
        }
        guard text.count <= 15 else {
            throw failure(at: start, found: text, "number \(Self.quote(text)) has too many digits")
        }
        return text
    }

    /// `number unit` in the metric's own unit (ns, count, percent), or the reason it does not fit.
    private func scale(_ number: Double, unit: String, at column: Int, for metric: BudgetMetric)
        throws(BudgetSyntaxError) -> Double
    {
        let dimension = metric.dimension
        let timeUnits: [String: Double] = ["ns": 1, "us": 1e3, "µs": 1e3, "μs": 1e3, "ms": 1e6, "s": 1e9]
        let known = unit.isEmpty || unit == "%" || timeUnits[unit] != nil
        guard known else {
            let hint = timeUnits[unit.lowercased()] != nil ? " (units are lowercase)" : ""
            throw failure(
                at: column, found: unit, "unknown unit \(Self.quote(unit))\(hint); use ns, us, ms, s or %")
        }
        switch dimension {
        case .duration:
            guard let factor = timeUnits[unit] else {
                throw failure(at: column, found: unit, "\(metric) is a duration; write \(dimension.example)")
            }
            let nanoseconds = (number * factor).rounded()
            guard nanoseconds < 9e18 else { throw failure(at: column, "duration too large") }
            return nanoseconds
        case .count:
            guard unit.isEmpty, number.rounded() == number else {
                throw failure(at: column, found: unit, "\(metric) is a count; write \(dimension.example)")
            }
            return number
        case .percent:
            guard unit == "%" else {
                throw failure(at: column, found: unit, "\(metric) is a percentage; write \(dimension.example)")
            }
            return number
        }
    }

    // MARK: Scanning

    var peek: Character? { position < characters.count ? characters[position] : nil }

    mutating func skipSpaces() {
        while let character = peek, character == " " || character == "\t" { position += 1 }
    }

    /// ASCII letters, digits and `_`, starting with a letter.
    mutating func readIdentifier() -> String {
        let start = position
        while let character = peek, character.isASCII,
            character.isLetter || (position > start && (character.isNumber || character == "_"))
        {
            position += 1
        }
        return String(characters[start..<position])
    }

    /// The run of non-space characters at `index` (for quoting what was found).
    func word(from index: Int) -> String {
        guard index < characters.count else { return "" }
        let end = characters[index...].firstIndex { $0 == " " || $0 == "\t" } ?? characters.count
        return String(characters[index..<max(end, index + 1)])
    }

    func failure(at index: Int? = nil, found: String = "", _ problem: String) -> BudgetSyntaxError {
        BudgetSyntaxError(text: text, column: (index ?? position) + 1, found: found, problem: problem)
    }

    static func quote(_ text: String) -> String { "'\(QuotedText.printable(text, limit: 40))'" }

    /// `a, b or c`.
    private static func list(_ items: [String]) -> String {
        items.count < 2 ? items.joined() : items.dropLast().joined(separator: ", ") + " or " + items[items.count - 1]
    }
}
