import Foundation
import LagmonCore
import Testing

/// Speedscope, Trace Event and pprof writers on a hand-made report.
struct ExportWriterTests {
    let report = ExportFixture.report

    private func json(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test func speedscopeHasOneSampledProfilePerLoopWithStallsAsRoots() throws {
        let file = try json(SpeedscopeWriter().render(report))
        #expect(file["$schema"] as? String == "https://www.speedscope.app/file-format-schema.json")
        let frames = try #require((file["shared"] as? [String: Any])?["frames"] as? [[String: Any]])
        let profiles = try #require(file["profiles"] as? [[String: Any]])
        #expect(profiles.count == 1)
        let profile = profiles[0]
        #expect(profile["type"] as? String == "sampled" && profile["unit"] as? String == "nanoseconds")
        let samples = try #require(profile["samples"] as? [[Int]])
        let weights = try #require(profile["weights"] as? [UInt64])
        #expect(samples.count == weights.count)
        // Each stall's weights add up to its duration; the sampleless one is its root alone.
        #expect(weights.reduce(0, +) == (180 + 130 + 110) * ExportFixture.ms)
        #expect(profile["endValue"] as? UInt64 == weights.reduce(0, +))
        let roots = samples.map { frames[$0[0]]["name"] as? String ?? "" }
        #expect(
            Set(roots) == [
                "stall #1 +0.250s 180ms afterWaiting", "stall #2 +1.000s 130ms afterWaiting",
                "stall #3 +2.000s 110ms afterWaiting",
            ])
        #expect(samples.last?.count == 1)
        // `file` and `line` are the source's when known, never the module's name.
        #expect(frames.contains { $0["name"] as? String == "read" && $0["file"] == nil && $0["line"] == nil })
        #expect(
            frames.contains {
                $0["name"] as? String == "ImageDecoder.decodeImage(_:)"
                    && $0["file"] as? String == "Sources/ImageViewer/ImageDecoder.swift" && $0["line"] as? Int == 42
            })
    }

    @Test func speedscopeSharesAreExact() {
        #expect(SpeedscopeWriter.shares(of: 10, counts: [1, 1, 1]) == [4, 3, 3])
        #expect(SpeedscopeWriter.shares(of: UInt64.max, counts: [1, 1]).reduce(0, &+) == UInt64.max)
    }

    @Test func chromeTraceHasStallsIterationsCountersAndNames() throws {
        let events = try #require(try json(ChromeTraceWriter().render(report))["traceEvents"] as? [[String: Any]])
        let stalls = events.filter { $0["cat"] as? String == "stall" }
        #expect(stalls.count == 3)
        #expect(stalls.allSatisfy { $0["ph"] as? String == "X" && $0["tid"] as? Int == 4242 })
        let first = try #require(stalls.first)
        #expect(first["ts"] as? Double == 250_000 && first["dur"] as? Double == 180_000)
        #expect(
            (first["args"] as? [String: Any])?["culprit"] as? String == "ImageDecoder.decodeImage(_:) (ImageViewer)")
        #expect(events.filter { $0["cat"] as? String == "iteration" && $0["ph"] as? String == "X" }.count == 2)
        #expect(events.filter { $0["ph"] as? String == "C" }.count == 3)
        #expect(events.filter { $0["ph"] as? String == "i" }.count == 1)
        #expect(events.contains { $0["ph"] as? String == "M" && $0["name"] as? String == "thread_name" })
        let times = events.filter { $0["ph"] as? String != "M" }.compactMap { $0["ts"] as? Double }
        #expect(times == times.sorted())
    }

    /// The first stall's seven samples, 10 ms apart from 5 ms into it, with their nodes.
    static func timedReport() -> Report {
        var report = ExportFixture.report
        let nodes = ExportFixture.firstProfile.timeline.map(\.node)
        report.stalls[0].sampleTimeline = nodes.enumerated().map { index, node in
            StallSampleTime(offsetNs: UInt64(5 + 10 * index) * ExportFixture.ms + 400, node: node)
        }
        return report
    }

    @Test func chromeTraceHasEachSampleInACPUProfileOfItsThread() throws {
        let report = Self.timedReport()
        let events = try #require(try json(ChromeTraceWriter().render(report))["traceEvents"] as? [[String: Any]])
        let profile = events.filter { $0["ph"] as? String == "P" }
        // One chunk: the second stall has no timeline (a report of an earlier build), the third no samples.
        #expect(profile.map { $0["name"] as? String } == ["Profile", "ProfileChunk"])
        #expect(
            profile.allSatisfy {
                $0["id"] as? String == "0x1092" && $0["tid"] as? Int == 4242 && $0["pid"] as? Int == 4242
            })
        let start = try #require((profile[0]["args"] as? [String: Any])?["data"] as? [String: Any])
        #expect(start["startTime"] as? Int == 250_000)
        let data = try #require((profile[1]["args"] as? [String: Any])?["data"] as? [String: Any])
        let cpuProfile = try #require(data["cpuProfile"] as? [String: Any])
        let nodes = try #require(cpuProfile["nodes"] as? [[String: Any]])
        let samples = try #require(cpuProfile["samples"] as? [Int])
        let deltas = try #require(data["timeDeltas"] as? [Int])
        // Whole microseconds: 5.4 ms after the start, then 10 ms apart; `(idle)` at the stall's end (430 ms).
        #expect(deltas == [5_000, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000, 115_000])
        #expect(samples.count == 8 && samples.last == 2)
        // Nodes are numbered from 1, each after its parent: `(root)`, `(idle)`, then the tree depth first.
        #expect(nodes.map { $0["id"] as? Int } == Array(1...nodes.count))
        for node in nodes.dropFirst() { #expect((node["parent"] as? Int ?? .max) < (node["id"] as? Int ?? 0)) }
        func frame(_ id: Int) -> [String: Any] { nodes[id - 1]["callFrame"] as? [String: Any] ?? [:] }
        #expect(frame(1)["functionName"] as? String == "(root)" && nodes[0]["parent"] == nil)
        #expect(frame(2)["functionName"] as? String == "(idle)")
        #expect(frame(3)["functionName"] as? String == "__libc_start_call_main" && nodes[2]["parent"] as? Int == 1)
        // Five samples ran in decodeImage (at its line, 0-based), two in the callee it called.
        let leaves = samples.map { frame($0)["functionName"] as? String ?? "" }
        #expect(leaves.filter { $0 == "ImageDecoder.decodeImage(_:)" }.count == 5)
        #expect(leaves.filter { $0 == "operator;\nweird\\name" }.count == 2)
        let decode = try #require(
            samples.map(frame).first { $0["functionName"] as? String == "ImageDecoder.decodeImage(_:)" })
        #expect(
            decode["url"] as? String == "Sources/ImageViewer/ImageDecoder.swift" && decode["lineNumber"] as? Int == 41)
    }

    @Test func aThreadsStallsAreChunksOfOneProfileWithUniqueNodes() throws {
        var report = Self.timedReport()
        report.stalls[1].sampleTimeline = ExportFixture.secondProfile.timeline.enumerated().map { index, item in
            StallSampleTime(offsetNs: UInt64(index + 1) * 20 * ExportFixture.ms, node: item.node)
        }
        let events = try #require(try json(ChromeTraceWriter().render(report))["traceEvents"] as? [[String: Any]])
        let profile = events.filter { $0["ph"] as? String == "P" }
        #expect(profile.map { $0["name"] as? String } == ["Profile", "ProfileChunk", "ProfileChunk"])
        let chunks = profile.dropFirst().compactMap { ($0["args"] as? [String: Any])?["data"] as? [String: Any] }
        let nodes = chunks.flatMap { (($0["cpuProfile"] as? [String: Any])?["nodes"] as? [[String: Any]]) ?? [] }
        let ids = nodes.compactMap { $0["id"] as? Int }
        #expect(ids == Array(1...ids.count))
        // The second chunk's first delta runs from the first stall's end (430 ms) to 1,020 ms.
        #expect((chunks[1]["timeDeltas"] as? [Int])?.first == 590_000)
    }

    @Test func samplesAtNodesTheTreeLacksAreLeftOut() throws {
        var report = Self.timedReport()
        report.stalls[0].sampleTimeline?.append(StallSampleTime(offsetNs: 90 * ExportFixture.ms, node: 10_000))
        report.stalls[0].sampleTimeline?.append(StallSampleTime(offsetNs: 95 * ExportFixture.ms, node: -1))
        let events = try #require(try json(ChromeTraceWriter().render(report))["traceEvents"] as? [[String: Any]])
        let chunk = try #require(events.first { $0["name"] as? String == "ProfileChunk" })
        let data = (chunk["args"] as? [String: Any])?["data"] as? [String: Any]
        // Seven samples and the `(idle)` one at the end.
        #expect(((data?["cpuProfile"] as? [String: Any])?["samples"] as? [Int])?.count == 8)
    }

    @Test func pprofStartsWithItsSampleTypesAndIsDeterministic() throws {
        let bytes = try PprofWriter().render(report)
        #expect(bytes == (try PprofWriter().render(report)))
        // sample_type (field 1, a message) comes first.
        #expect(bytes.first == 0x0A)
        #expect(PprofWriter.epochNanoseconds("2025-01-02T03:04:05.678Z") == 1_735_787_045_678_000_000)
    }

    @Test func everyWriterIsDeterministic() throws {
        let writers: [any ReportWriter] = [
            HTMLReportWriter(), FoldedStacksWriter(), SpeedscopeWriter(), ChromeTraceWriter(), PprofWriter(),
        ]
        for writer in writers { #expect(try writer.render(report) == writer.render(report)) }
    }
}

struct PprofLocationTests {
    /// The decoded profile's mappings, locations and functions, for a report with `images`.
    @Test func framesAreLocatedAtTheirAddressesInTheirImages() throws {
        var report = ExportFixture.report
        let decode = ExportFixture.decode
        let image = ImageMapping(
            pid: report.target.pid, module: "ImageViewer", path: "/opt/demo/bin/ImageViewer",
            start: decode.address - 0x1000, limit: decode.address + 0x10_0000, fileOffset: 0x1000, buildId: "abcd")
        report.images = [image]
        let text = String(decoding: try PprofWriter().render(report), as: UTF8.self)
        // Strings the tables must hold: the image's path and build id, the frame's source file.
        #expect(text.contains("/opt/demo/bin/ImageViewer") && text.contains("abcd"))
        #expect(text.contains("Sources/ImageViewer/ImageDecoder.swift"))
        #expect(text.contains("(no stack samples)"))
    }

    @Test func interpretedFramesAreLocationsOfTheirOwn() {
        // Python frames all have address 0: each function and line is a location of its own, with
        // its source file (JavaScript frames too, at their JIT addresses).
        let parse = Frame.interpreted(.python, function: "parse_feed", file: "/srv/app.py", line: 12)
        let handle = Frame.interpreted(.python, function: "handle_request", file: "/srv/app.py", line: 30)
        var derive = Frame.interpreted(.javascript, function: "deriveKey", file: "/srv/app.js", line: 6)
        derive.address = 0x3c00_1234
        let profile = StallProfiler().profile(
            (0..<3).map { Fixture.sample(at: UInt64($0), [Fixture.frame("scan_once_unicode"), parse, handle, derive]) })
        var report = ExportFixture.report
        report.stalls = [
            Fixture.stall(
                id: 1, tid: 4242, startNs: 0, durationNs: 150 * Fixture.ms, profile: profile,
                diagnosis: StallDiagnosis(kind: .cpu, text: "CPU-bound in parse_feed (app.py:12)"))
        ]
        let text = String(decoding: (try? PprofWriter().render(report)) ?? [], as: UTF8.self)
        for name in ["parse_feed", "handle_request", "deriveKey", "/srv/app.py", "/srv/app.js"] {
            #expect(text.contains(name), "\(name) missing from the pprof string table")
        }
    }

    @Test func unknownFramesAreOneNamePerModule() {
        #expect(Frame(symbol: nil, module: "?", offset: 0x5643, address: 0x5643).groupName == "[unknown]")
        #expect(Frame(symbol: nil, module: "[vdso]", offset: 0xb54, address: 0x7fff_0b54).groupName == "[vdso]+?")
        #expect(Frame(symbol: "f", module: "m", offset: 1, address: 1).groupName == "f")
    }
}
