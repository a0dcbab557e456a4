import LagmonCore
import Testing

struct JSONReportWriterTests {
    static let ms = Fixture.ms

    static let main = Fixture.frame("main", offset: 0x40)
    static let decode = Fixture.frame(
        "ImageDecoder.decodeImage(_:)", offset: 0x2000, file: "/src/ImageDecoder.swift", line: 42)
    static let anonymous = Fixture.frame(nil, offset: 0x4242)
    static let fingerprint = StackFingerprint(frames: ["ImageViewer`ImageDecoder.decodeImage(_:)", "ImageViewer`main"])

    /// Four samples: three in decodeImage, one in code without a symbol.
    static let profile = StackProfile(
        samples: 4,
        stacks: [StackCount(count: 3, frames: [main, decode]), StackCount(count: 1, frames: [main, anonymous])],
        stacksOmitted: 0,
        callTree: CallTreeNode(
            name: "(all)", module: "", count: 4,
            children: [
                CallTreeNode(
                    name: "main", module: "ImageViewer", count: 4,
                    children: [
                        CallTreeNode(
                            name: "ImageDecoder.decodeImage(_:)", module: "ImageViewer", count: 3, children: []),
                        CallTreeNode(name: "ImageViewer+0x4242", module: "ImageViewer", count: 1, children: []),
                    ])
            ]),
        culprit: decode, fingerprint: fingerprint)

    /// A report exercising every field: a signal, an ongoing stall, diagnostics, an awkward
    /// busy ratio and a duration beyond 2^53 (where a Double would lose the last digit), a
    /// profiled stall and one without samples, a fingerprint, a thread with an alert.
    static let fullReport: Report = {
        var report = Fixture.report(
            command: ["/usr/bin/ImageViewer", "--path", "a/b"], exitStatus: 137, signal: 9,
            stalls: [
                Fixture.stall(
                    id: 1, tid: 100, startNs: 500 * ms, durationNs: 200 * ms, seenLive: false, profile: profile,
                    diagnosis: StallDiagnosis(kind: .cpu, text: "CPU-bound in ImageDecoder.decodeImage(_:)")),
                Fixture.stall(
                    id: 2, tid: 200, startNs: 4_700 * ms, durationNs: 300 * ms, activity: .beforeSources,
                    ongoingAtExit: true),
            ],
            diagnostics: [Diagnostic(code: "watchdog-late", severity: .info, message: "late \"quoted\" é")],
            fingerprints: [
                FingerprintReport(
                    id: fingerprint.id, frames: fingerprint.frames, count: 1, totalNs: 200 * ms, worstNs: 200 * ms,
                    stallIds: [1])
            ],
            threads: [
                ThreadReport(
                    tid: 4243, name: "decoder", state: "R",
                    cpu: ThreadCPU(avgPct: 87.5, maxPct: 99.25, totalNs: 4_375 * ms),
                    alerts: [CPUAlert(atNs: 1_250 * ms, cpuPct: 99.25, frames: [main, decode])])
            ],
            sampling: SamplingReport(
                samples: 4, pauseNsP50: 38_000, pauseNsP99: 90_000, pauseNsMax: 120_000, sampleNsP50: 95_000,
                unwindErrors: 1, truncated: 0, completeness: 0.75))
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
        // report, tool, target, config, summary, watchdog, sampling, 1 diagnostic, 1 loop (+ thread,
        // latency), 2 stalls (+ thread and diagnosis each; the first + 2 stacks of 2 frames, a
        // culprit and 4 tree nodes), 1 fingerprint, 1 thread (+ cpu, 1 alert with 2 frames).
        #expect(objects.count == 7 + 1 + 3 + 6 + 11 + 1 + 5)
        for keys in objects { #expect(keys == keys.sorted(), "\(keys)") }
        #expect(
            objects.last == [
                "config", "diagnostics", "fingerprints", "loops", "sampling", "schemaVersion", "stalls", "summary",
                "target", "threads", "tool", "watchdog",
            ])
    }

    @Test func durationsAreIntegers() throws {
        let text = String(decoding: try render(Self.fullReport), as: UTF8.self)
        var durations = 0
        // Keys ending in `Ns`, and sampling's `pauseNsP50` style percentiles.
        for line in text.split(separator: "\n")
        where line.split(separator: "\"").dropFirst().first?.contains("Ns") == true {
            let value = line.split(separator: ":", maxSplits: 1)[1].trimmingPrefix(" ")
            let digits = value.hasSuffix(",") ? value.dropLast() : value[...]
            #expect(!digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }, "\(line)")
            durations += 1
        }
        // target.wallNs and monotonicStartNs, config (threshold and two intervals), 6 in the
        // summary (longest, total, blocking, three percentiles), 2 per stall, 6 in the loop (busy, observed, 4 latency), 3 in the watchdog,
        // 2 in the fingerprint, the thread's CPU total and alert time, 4 in sampling.
        #expect(durations == 2 + 3 + 6 + 2 * 2 + 6 + 3 + 2 + 2 + 4)
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

    @Test func stallProfilesEncodeFieldByField() throws {
        let text = String(decoding: try render(Self.fullReport), as: UTF8.self)
        #expect(text.contains("\"samples\" : 4,"))
        #expect(text.contains("\"stacksOmitted\" : 0,"))
        #expect(text.contains("\"kind\" : \"cpu\","))
        #expect(text.contains("\"text\" : \"no stack samples\""))
        #expect(text.contains("\"kind\" : \"unknown\","))
        #expect(text.contains("\"fingerprint\" : \"\(Self.fingerprint.id)\","))
        #expect(text.contains("\"ImageViewer`ImageDecoder.decodeImage(_:)\""))
        #expect(text.contains("\"file\" : \"/src/ImageDecoder.swift\","))
        #expect(text.contains("\"line\" : 42,"))
        #expect(text.contains("\"offset\" : 16962\n"))
        #expect(text.contains("\"completeness\" : 0.75,"))
        #expect(text.contains("\"cpuAlertPct\" : 70,"))
        // Absent culprit, fingerprint, call tree, symbol and unavailable reason are omitted.
        #expect(text.ranges(of: "\"culprit\"").count == 1)
        #expect(text.ranges(of: "\"callTree\"").count == 1)
        #expect(text.ranges(of: "\"fingerprint\"").count == 1)
        #expect(text.ranges(of: "\"symbol\"").count == 6)
        #expect(!text.contains("null"))
        #expect(!text.contains("\"unavailable\""))
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
