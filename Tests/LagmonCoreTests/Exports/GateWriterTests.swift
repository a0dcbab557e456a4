import Foundation
import LagmonCore
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The JUnit, GitHub and Markdown writers: their structure, and that hostile text (a target
/// named with markup, control characters, `%`, newlines) cannot break out of its place.
struct GateWriterTests {
    static let hostile = "evil <x>&\"'\n::error::pwned %0A | `tick` \u{1B}[31m \u{0}"

    static func verdict(subject: String = "ImageViewer --slow") -> GateVerdict {
        GateVerdict(
            title: "budgets", subject: subject,
            checks: [
                GateCheck(
                    name: "stall.max < 250ms", severity: .error, passed: false, measured: "312ms", limit: "<250ms",
                    message: "stall.max=312ms (limit <250ms)"),
                GateCheck(
                    name: "stall.count <= 3", severity: .warning, passed: false, measured: "7", limit: "<=3",
                    message: "stall.count=7 (limit <=3)"),
                GateCheck(
                    name: "blocking.ratio < 5%", severity: .error, passed: true, measured: "4.1%", limit: "<5%",
                    message: "blocking.ratio=4.1% (limit <5%)"),
                GateCheck(
                    name: "latency.p99", severity: .info, passed: true, measured: "3ms → 4ms", limit: "", message: ""),
            ],
            facts: ["7 stalls", "blocking 1.2s (4.1%)"], seconds: 5.25, checkNoun: "budget")
    }

    /// Parses `bytes` as XML; returns the error, if any.
    func xmlError(_ bytes: [UInt8]) -> Error? {
        let parser = XMLParser(data: Data(bytes))
        return parser.parse() ? nil : (parser.parserError ?? CocoaError(.fileReadCorruptFile))
    }

    @Test func junitHasOneCasePerGatedCheckAndAFailureForTheFailedOne() throws {
        let xml = String(decoding: try JUnitWriter().render(Self.verdict()), as: UTF8.self)
        #expect(xmlError(Array(xml.utf8)) == nil)
        #expect(
            xml.contains(
                #"<testsuite name="lagmon budgets" tests="3" failures="1" errors="0" time="5.250" skipped="0">"#))
        #expect(xml.contains(#"<testsuites name="lagmon" tests="3" failures="1" errors="0" time="5.250">"#))
        #expect(xml.components(separatedBy: "<testcase ").count - 1 == 3, "the info check is not a test case")
        #expect(xml.contains(#"<failure message="stall.max=312ms (limit &lt;250ms)" type="budget">measured: 312ms"#))
        #expect(xml.contains("<system-out>warning: stall.count=7 (limit &lt;=3)"))
        #expect(xml.contains(#"<testcase name="blocking.ratio &lt; 5%" classname="lagmon.budgets" time="0"/>"#))
    }

    @Test func junitEscapesHostileText() throws {
        var verdict = Self.verdict(subject: Self.hostile)
        verdict.checks[0].message = Self.hostile
        verdict.checks[0].measured = "]]>" + Self.hostile
        let bytes = try JUnitWriter().render(verdict)
        #expect(xmlError(bytes) == nil, "well-formed despite \(Self.hostile.debugDescription)")
        let xml = String(decoding: bytes, as: UTF8.self)
        #expect(!xml.contains("<x>"))
        #expect(!xml.contains("\u{0}") && !xml.contains("\u{1B}"))
        #expect(xml.contains("evil &lt;x&gt;&amp;&quot;'&#10;::error::pwned"))
    }

    @Test func githubAnnotatesFailuresAndWarningsOnly() throws {
        let text = String(decoding: try GitHubAnnotationWriter().render(Self.verdict()), as: UTF8.self)
        #expect(
            text == """
                ::error title=lagmon budgets%3A stall.max < 250ms::stall.max=312ms (limit <250ms) in ImageViewer --slow
                ::warning title=lagmon budgets%3A stall.count <= 3::stall.count=7 (limit <=3) in ImageViewer --slow

                """)
    }

    @Test func githubEscapesPercentAndLineBreaks() throws {
        let text = String(
            decoding: try GitHubAnnotationWriter().render(Self.verdict(subject: "50%\r\nx,y:z")), as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
        #expect(lines.count == 2, "one line per annotation: \(text.debugDescription)")
        #expect(lines[0].hasSuffix("in 50%25%0D%0Ax,y:z"))
        #expect(GitHubAnnotationWriter.property("a: b, 5%\n") == "a%3A b%2C 5%25%0A")
    }

    @Test func markdownHasAHeadingTheVerdictAndATable() throws {
        let text = String(decoding: try MarkdownSummaryWriter().render(Self.verdict()), as: UTF8.self)
        #expect(text.hasPrefix("### ❌ lagmon budgets: FAIL — `ImageViewer --slow`\n\n"))
        #expect(text.contains("| ❌ fail | `stall.max < 250ms` | 312ms | \\<250ms | error |"))
        #expect(text.contains("| ⚠️ warn | `stall.count <= 3` | 7 | \\<=3 | warning |"))
        #expect(text.contains("| ✅ pass | `blocking.ratio < 5%` | 4.1% | \\<5% | error |"))
        #expect(!text.contains("&lt;") && !text.contains("&gt;") && !text.contains("&amp;"))
        #expect(text.contains("| ℹ️ info | `latency.p99` | 3ms → 4ms |  | info |"))
    }

    @Test func markdownKeepsHostileTextInItsCell() throws {
        var verdict = Self.verdict(subject: Self.hostile)
        verdict.checks[0].name = "a | b `c` <script>"
        let text = String(decoding: try MarkdownSummaryWriter().render(verdict), as: UTF8.self)
        let rows = text.split(separator: "\n").filter { $0.hasPrefix("| ") }
        #expect(rows.count == 6, "header, rule, four checks")
        for row in rows.dropFirst(2) {
            // Every row has exactly seven unescaped pipes: six cells.
            let pipes = zip(row, [" "] + row.dropLast()).filter { $0.0 == "|" && $0.1 != "\\" }.count
            #expect(pipes == 7, "\(row)")
        }
        #expect(!text.contains("<script>") && !text.contains("<x>"))
    }

    @Test func textLinesEndWithTheVerdict() throws {
        let lines = GateTextWriter(style: TerminalStyle(colors: false)).lines(Self.verdict())
        #expect(
            lines == [
                "budgets:",
                "  FAIL stall.max < 250ms: 312ms",
                "  warn stall.count <= 3: 7",
                "  pass blocking.ratio < 5%: 4.1%",
                "  info latency.p99: 3ms → 4ms",
                "FAIL stall.max=312ms (limit <250ms) · 7 stalls · blocking 1.2s (4.1%)",
            ])
        let quiet = GateTextWriter(style: TerminalStyle(colors: false), verdictOnly: true).lines(Self.verdict())
        #expect(quiet == ["FAIL stall.max=312ms (limit <250ms) · 7 stalls · blocking 1.2s (4.1%)"])
    }

    @Test(arguments: [
        (MetricDimension.duration, 312e6, "312ms"), (.duration, 1.2e9, "1.2s"), (.duration, 2e9, "2s"),
        (.duration, 0, "0"), (.duration, 840e3, "840µs"), (.count, 7, "7"), (.percent, 4.1, "4.1%"),
        (.percent, 10.04, "10%"), (.percent, 0.25, "0.25%"), (.percent, 100, "100%"),
    ])
    func formats(_ dimension: MetricDimension, _ value: Double, _ text: String) {
        #expect(dimension.format(value) == text)
    }
}
