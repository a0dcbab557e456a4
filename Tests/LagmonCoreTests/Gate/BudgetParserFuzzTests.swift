import LagmonCore
import Testing

/// Thousands of random and mutated budgets and tolerances: the parsers return a value or a typed
/// error, never trap, and whatever they accept survives a round trip through its normalised text.
/// Deterministic (a fixed seed), so a failure reproduces.
struct BudgetParserFuzzTests {
    /// SplitMix64: small, fast and the same on every platform.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
        mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
    }

    static let seeds = [
        "stall.max < 250ms", "stall.count <= 3", "stall.p99 < 1.5s", "latency.p50 < 800us", "latency < 16ms",
        "blocking.total < 500ms", "blocking.ratio <= 5%", "cpu[main].avg < 50%", "cpu[*].max >= 90%",
        "cpu[4242].max < 90%", "cpu['io worker'].avg < 20%", "cpu[\"main\"].max > 1%", "stall > 0",
    ]

    /// Characters that matter to the grammar, and some that should never be accepted.
    static let alphabet: [Character] =
        Array("stallcpuavgmaxp5099.[]<>=!≤ 0123456789%smunµμ*'\"\t\n-+_:,;ÿ٣\u{0}\u{A0}\u{202E}👍é")
        + ["e\u{301}", "\r\n"]

    static let tolerances = ["stall.p99:+10%", "*:+5%", "stall.max:+20ms", "stall.count:+1", "blocking.ratio:+0.5pp"]

    func mutate(_ text: String, _ random: inout Random) -> String {
        var characters = Array(text)
        for _ in 0..<(1 + random.below(4)) {
            let index = characters.isEmpty ? 0 : random.below(characters.count + 1)
            switch random.below(6) {
            case 0: characters.insert(random.pick(Self.alphabet), at: index)
            case 1 where !characters.isEmpty: characters.remove(at: min(index, characters.count - 1))
            case 2 where !characters.isEmpty: characters[min(index, characters.count - 1)] = random.pick(Self.alphabet)
            case 3:
                let piece = Array(random.pick(Self.seeds).prefix(random.below(12)))
                characters.insert(contentsOf: piece, at: index)
            case 4: characters = Array(characters.prefix(index))
            default: characters.append(contentsOf: Array(String(repeating: "9", count: random.below(30))))
            }
        }
        return String(characters)
    }

    func randomText(_ random: inout Random) -> String {
        String((0..<random.below(40)).map { _ in random.pick(Self.alphabet) })
    }

    @Test func budgetsNeverTrap() throws {
        var random = Random(state: 0x1A9_304)
        var accepted = 0
        var rejected = 0
        for round in 0..<20_000 {
            let text = round % 3 == 0 ? randomText(&random) : mutate(random.pick(Self.seeds), &random)
            do {
                let expression = try BudgetExpression(parsing: text)
                accepted += 1
                let again = try BudgetExpression(parsing: expression.description)
                #expect(again == expression, "round trip of \(text.debugDescription)")
            } catch {
                rejected += 1
                #expect(error.column >= 1 && error.column <= text.count + 1, "\(text.debugDescription): \(error)")
                #expect(!error.description.contains("\n") && !error.description.contains("\r"))
            }
        }
        // Both outcomes were exercised, not just one.
        #expect(accepted > 300)
        #expect(rejected > 1_000)
    }

    @Test func tolerancesNeverTrap() {
        var random = Random(state: 0x70_1E2A)
        var accepted = 0
        for round in 0..<10_000 {
            let text = round % 3 == 0 ? randomText(&random) : mutate(random.pick(Self.tolerances), &random)
            do {
                let tolerance = try RegressionTolerance(parsing: text)
                accepted += 1
                #expect(try RegressionTolerance(parsing: tolerance.description) == tolerance)
            } catch {
                #expect(error.subject == "tolerance")
                #expect(!error.description.contains("\n"))
            }
        }
        #expect(accepted > 100)
    }

    @Test func budgetFilesNeverTrap() {
        var random = Random(state: 0xF11E)
        let valid = #"{"budgets":[{"budget":"stall.max < 250ms","level":"warn"},{"budget":"stall.count <= 3"}]}"#
        for _ in 0..<3_000 {
            let text = mutate(valid, &random)
            do {
                _ = try BudgetFile.parse(Array(text.utf8))
            } catch {
                #expect(!error.description.contains("\n"), "\(text): \(error)")
            }
        }
    }
}
