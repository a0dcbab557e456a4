import Testing

@testable import LagmonCore

/// /proc/<pid>/task/<tid>/stat lines as the kernel writes them, and as hostile names, short
/// reads and garbage make them.
struct ProcTaskStatTests {
    /// Everything after the comm of a real line (kernel 6.18, `sleep 5`), with utime 734,
    /// stime 129, starttime 380314 and processor 1. tpgid is -1, as for any process without a
    /// controlling terminal.
    static let afterComm =
        "S 13310 13310 4915 0 -1 4194304 135 0 0 0 734 129 0 0 20 0 1 0 380314 2990080 396 "
        + "18446744073709551615 94637502619648 94637502637577 140734039493376 0 0 0 0 6 0 1 0 0 17 1 0 0 0 0 0 "
        + "94637502651664 94637502652928 94638472159232 140734039501527 140734039501535 140734039501535 "
        + "140734039502825 0\n"

    static func line(tid: String = "13315", comm: [UInt8] = Array("sleep".utf8), rest: String = afterComm) -> [UInt8] {
        Array("\(tid) (".utf8) + comm + Array(") \(rest)".utf8)
    }

    static func expected(comm: String = "sleep") -> ProcTaskStat {
        ProcTaskStat(
            tid: 13315, comm: comm, state: .sleeping, utimeTicks: 734, stimeTicks: 129, startTimeTicks: 380314,
            processor: 1)
    }

    @Test func parsesARealLine() {
        #expect(ProcTaskStat.parse(Self.line()) == Self.expected())
        #expect(Self.expected().cpuTicks == 863)
    }

    @Test func readsMajorFaults() {
        let faulted = Self.afterComm.replacing("135 0 0 0 734", with: "135 0 17 0 734")
        #expect(ProcTaskStat.parse(Self.line(rest: faulted))?.majorFaults == 17)
        #expect(ProcTaskStat.parse(Self.line())?.majorFaults == 0)
    }

    // MARK: Names

    static let hostileNames: [([UInt8], String)] = [
        (Array("cpu burner".utf8), "cpu burner"),
        (Array("a) R 1 2 3".utf8), "a) R 1 2 3"),
        (Array("((".utf8), "(("),
        (Array("))".utf8), "))"),
        (Array(")".utf8), ")"),
        (Array("(".utf8), "("),
        (Array(") (".utf8), ") ("),
        (Array("".utf8), ""),
        (Array(" ".utf8), " "),
        (Array("two\nlines".utf8), "two\nlines"),
        (Array("ünï".utf8), "ünï"),
        ([0xFF, 0xFE, UInt8(ascii: "A")], "\u{FFFD}\u{FFFD}A"),
        ([UInt8(ascii: "x"), 0xC3], "x\u{FFFD}"),
        ([0x00, UInt8(ascii: "z")], "\u{0}z"),
    ]

    @Test(arguments: hostileNames)
    func commIsEverythingBetweenTheFirstOpenAndTheLastCloseParenthesis(name: [UInt8], decoded: String) {
        #expect(ProcTaskStat.parse(Self.line(comm: name)) == Self.expected(comm: decoded))
    }

    // MARK: Truncation

    /// The index of the separator after the processor field (field 39) in `line`; nil when the
    /// line has none.
    static func processorSeparator(_ line: [UInt8]) -> Int? {
        let close = line.lastIndex(of: UInt8(ascii: ")"))!
        var spaces = 0
        for index in (close + 1)..<line.count where line[index] == UInt8(ascii: " ") {
            spaces += 1
            // One space after ")", then 37 more up to and including the one after processor.
            if spaces == 38 { return index }
        }
        return nil
    }

    @Test(arguments: [Array("sleep".utf8), Array("a) b (".utf8), [0xFF]])
    func everyTruncationIsNilUntilTheProcessorFieldIsCompleteThenExact(comm: [UInt8]) throws {
        let full = Self.line(comm: comm)
        let expected = ProcTaskStat.parse(full)
        #expect(expected != nil)
        let separator = try #require(Self.processorSeparator(full))
        #expect(full[(separator - 2)..<separator] == [UInt8(ascii: " "), UInt8(ascii: "1")])
        for length in 0...full.count {
            let parsed = ProcTaskStat.parse(Array(full.prefix(length)))
            if length <= separator {
                #expect(parsed == nil, "prefix of \(length) bytes")
            } else {
                #expect(parsed == expected, "prefix of \(length) bytes")
            }
        }
    }

    @Test func aLineEndingAtTheProcessorFieldParsesWhenNewlineTerminated() {
        let fields = Self.afterComm.split(separator: " ", omittingEmptySubsequences: false)
        let upToProcessor = fields.prefix(37).joined(separator: " ")
        #expect(ProcTaskStat.parse(Self.line(rest: upToProcessor + "\n")) == Self.expected())
        // Without the newline, "1" might be the start of "12": refused.
        #expect(ProcTaskStat.parse(Self.line(rest: upToProcessor)) == nil)
    }

    // MARK: Numbers

    /// `afterComm` with the fields at the given token positions (0 = state) replaced.
    static func replacing(_ values: [Int: String]) -> String {
        var fields = afterComm.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        for (token, value) in values { fields[token] = value }
        return fields.joined(separator: " ")
    }

    static func replacing(_ token: Int, with value: String) -> String {
        replacing([token: value])
    }

    @Test func largestValuesParse() {
        let max = "18446744073709551615"
        let rest = Self.replacing([11: max, 12: max, 19: max, 36: "2147483647"])
        let parsed = ProcTaskStat.parse(Self.line(tid: "2147483647", rest: rest))
        #expect(
            parsed
                == ProcTaskStat(
                    tid: .max, comm: "sleep", state: .sleeping, utimeTicks: .max, stimeTicks: .max,
                    startTimeTicks: .max, processor: .max))
        #expect(parsed?.cpuTicks == .max)
    }

    @Test func negativeNumbersInFieldsLagmonDoesNotReadAreFine() {
        // priority -100 (real-time), nice -20.
        let rest = Self.replacing([15: "-100", 16: "-20"])
        #expect(ProcTaskStat.parse(Self.line(rest: rest)) == Self.expected())
    }

    static let garbledFields: [(token: Int, value: String)] = [
        (11, "-1"), (11, "18446744073709551616"), (11, "99999999999999999999999"), (11, "12a"), (11, ""),
        (11, "+5"), (11, "0x10"), (12, "-0"), (12, " 1"), (19, "1.5"), (36, "-1"), (36, "2147483648"),
        (0, "RS"), (0, "1"), (0, ""), (0, "?"), (0, "é"),
    ]

    @Test(arguments: garbledFields)
    func garbledRequiredFieldsAreRefused(token: Int, value: String) {
        #expect(ProcTaskStat.parse(Self.line(rest: Self.replacing(token, with: value))) == nil)
    }

    static let garbledLines: [String] = [
        "", "\n", " ", "()", "0 (x) R", "(sleep) S 1", "13315 sleep) S 1", "13315 (sleep S 1 2 3",
        "13315(sleep) " + afterComm, "13315  (sleep) " + afterComm, "13315 (sleep)" + afterComm,
        "13315 (sleep)  " + afterComm, "-13315 (sleep) " + afterComm, "0 (sleep) " + afterComm,
        "2147483648 (sleep) " + afterComm, "x13315 (sleep) " + afterComm, " 13315 (sleep) " + afterComm,
        "13315 )sleep( " + afterComm,
    ]

    @Test(arguments: garbledLines)
    func garbledLinesAreRefused(text: String) {
        #expect(ProcTaskStat.parse(Array(text.utf8)) == nil)
    }

    @Test func aDoubledSeparatorBeforeTheProcessorShiftsFieldsAndIsRefused() {
        let rest = Self.replacing(10, with: "0 ")
        #expect(rest.contains(" 0  734 "))
        #expect(ProcTaskStat.parse(Self.line(rest: rest)) == nil)
    }

    @Test func binaryGarbageNeverCrashes() {
        var generator = SplitMix(seed: 42)
        for _ in 0..<2_000 {
            let length = Int(generator.next() % 400)
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            _ = ProcTaskStat.parse(bytes)
        }
        // Mutating one byte of a real line: parses to something or nil, never traps.
        let line = Self.line()
        for index in line.indices {
            for byte: UInt8 in [0, UInt8(ascii: ")"), UInt8(ascii: " "), UInt8(ascii: "9"), 0xFF] {
                var mutated = line
                mutated[index] = byte
                _ = ProcTaskStat.parse(mutated)
            }
        }
    }

    // MARK: States

    static let states: [(String, SchedulerState)] = [
        ("R", .running), ("S", .sleeping), ("D", .diskSleep), ("T", .stopped), ("t", .tracingStop),
        ("Z", .zombie), ("X", .dead), ("I", .idle), ("P", .parked), ("W", .unknown), ("K", .unknown),
        ("x", .unknown),
    ]

    @Test(arguments: states)
    func stateLetters(letter: String, state: SchedulerState) {
        #expect(ProcTaskStat.parse(Self.line(rest: Self.replacing(0, with: letter)))?.state == state)
    }
}

/// A small deterministic generator for garbage inputs.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
