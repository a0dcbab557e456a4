import LagmonCore
import Testing

struct JSONReportWriterTests {
    static let ms = Fixture.ms

    /// A report exercising every field: a signal, an ongoing stall, diagnostics, an awkward
    /// busy ratio and a duration beyond 2^53 (where a Double would lose the last digit).
    static let fullReport: Report = {
        var report = Fixture.report(
            command: ["/usr/bin/ImageViewer", "--path", "a/b"], exitStatus: 137, signal: 9,
            stalls: [
                Fixture.stall(id: 1, tid: 100, startNs: 500 * ms, durationNs: 200 * ms, seenLive: false),
                Fixture.stall(
                    id: 2, tid: 200, startNs: 4_700 * ms, durationNs: 300 * ms, activity: .beforeSources,
                    ongoingAtExit: true),
            ],
            diagnostics: [Diagnostic(code: "watchdog-late", severity: .info, message: "late \"quoted\" é")])
        report.loops[0].busyRatio = 1.0 / 3.0
        report.target.wallNs = 9_007_199_254_740_993
        return report
    }()

    private func render(_ report: Report) throws -> [UInt8] {
        try JSONReportWriter().render(report)
    }

    @Test func roundTripsToAnEqualReport() throws {
        for report in [Self.fullReport, Fixture.report(), Fixture.report(loops: [])] {
            #expect(try JSONReportWriter.decode(render(report)) == report)
        }
    }

    @Test func outputIsDeterministic() throws {
        let first = try render(Self.fullReport)
        #expect(try render(Self.fullReport) == first)
        // Decoding and encoding again gives the very same bytes.
        #expect(try render(JSONReportWriter.decode(first)) == first)
    }

    @Test func keysAreSortedInEveryObject() throws {
        let text = String(decoding: try render(Self.fullReport), as: UTF8.self)
        let objects = try JSONKeyOrder.keysPerObject(text)
        // report, tool, target, config, summary, watchdog, 1 diagnostic, 1 loop (+ thread, latency),
        // 2 stalls (+ thread each).
        #expect(objects.count == 14)
        for keys in objects { #expect(keys == keys.sorted(), "\(keys)") }
        #expect(
            objects.last == [
                "config", "diagnostics", "loops", "schemaVersion", "stalls", "summary", "target", "tool", "watchdog",
            ])
    }

    @Test func durationsAreIntegers() throws {
        let text = String(decoding: try render(Self.fullReport), as: UTF8.self)
        var durations = 0
        for line in text.split(separator: "\n") where line.contains("Ns\" : ") {
            let value = line.split(separator: ":", maxSplits: 1)[1].trimmingPrefix(" ")
            let digits = value.hasSuffix(",") ? value.dropLast() : value[...]
            #expect(!digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }, "\(line)")
            durations += 1
        }
        // target.wallNs and monotonicStartNs, config.thresholdNs, 3 in the summary, 2 per stall,
        // 6 in the loop (busy, observed, 4 latency), 3 in the watchdog.
        #expect(durations == 2 + 1 + 3 + 2 * 2 + 6 + 3)
        #expect(text.contains("\"wallNs\" : 9007199254740993\n"))
        #expect(text.contains("\"monotonicStartNs\" : 123456789012,"))
        #expect(text.contains("\"longestStallNs\" : 300000000,"))
        #expect(text.contains("\"blockingNs\" : 300000000,"))
    }

    @Test func documentShape() throws {
        let bytes = try render(Self.fullReport)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(bytes.last == UInt8(ascii: "\n"))
        #expect(text.hasPrefix("{\n"))
        #expect(text.contains("\"schemaVersion\" : 1,"))
        #expect(text.contains("\"/usr/bin/ImageViewer\""))
        #expect(text.contains("\"a/b\""))
        #expect(text.contains("\"signalName\" : \"SIGKILL\""))
        #expect(text.contains("\"activity\" : \"beforeSources\""))
        #expect(text.contains("\"severity\" : \"info\""))
        #expect(text.contains("\"ongoingAtExit\" : true"))
    }

    @Test func anExitWithoutSignalOmitsTheSignalFields() throws {
        let text = String(decoding: try render(Fixture.report()), as: UTF8.self)
        #expect(!text.contains("\"signal\""))
        #expect(!text.contains("\"signalName\""))
    }

    @Test func decodingRejectsWhatIsNotAReport() {
        #expect(throws: (any Error).self) { try JSONReportWriter.decode(Array("{}".utf8)) }
        #expect(throws: (any Error).self) { try JSONReportWriter.decode(Array("not json".utf8)) }
        #expect(throws: (any Error).self) { try JSONReportWriter.decode([]) }
    }
}

/// Lists each JSON object's keys in document order (objects in order of their closing brace),
/// so key order can be checked without a decoder that would lose it.
enum JSONKeyOrder {
    struct Malformed: Error {}

    static func keysPerObject(_ text: String) throws -> [[String]] {
        var finished: [[String]] = []
        // One entry per open container: nil for arrays, the keys so far for objects.
        var stack: [[String]?] = []
        var expectingKey = false
        var scalars = text.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            switch scalar {
            case "{":
                stack.append([])
                expectingKey = true
            case "[":
                stack.append(nil)
                expectingKey = false
            case "}", "]":
                guard let top = stack.popLast() else { throw Malformed() }
                if let keys = top { finished.append(keys) }
                expectingKey = false
            case ",":
                expectingKey = stack.last.map { $0 != nil } ?? false
            case "\"":
                let string = try readString(&scalars)
                if expectingKey, let keys = stack.last ?? nil {
                    stack[stack.count - 1] = keys + [string]
                    expectingKey = false
                }
            default:
                break
            }
        }
        guard stack.isEmpty else { throw Malformed() }
        return finished
    }

    private static func readString(_ scalars: inout String.UnicodeScalarView.Iterator) throws -> String {
        var result = ""
        while let scalar = scalars.next() {
            switch scalar {
            case "\"": return result
            case "\\":
                guard let escaped = scalars.next() else { throw Malformed() }
                result.unicodeScalars.append(escaped)
            default: result.unicodeScalars.append(scalar)
            }
        }
        throw Malformed()
    }
}
