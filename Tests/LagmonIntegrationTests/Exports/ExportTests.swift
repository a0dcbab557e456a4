import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// One `lagmon run` of the naive demo writing every export, shared by the tests below.
struct ExportRun: Sendable {
    let directory: String
    let report: Report

    var html: String { directory + "/report.html" }
    var folded: String { directory + "/stalls.folded" }
    var speedscope: String { directory + "/stalls.speedscope.json" }
    var trace: String { directory + "/trace.json" }
    var pprof: String { directory + "/stalls.pb.gz" }
    var json: String { directory + "/report.json" }

    static let shared: Result<ExportRun, any Error> = Result {
        let directory = temporaryPath("exports")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let paths = ExportRun(directory: directory, report: Fixture.empty)
        let result = try LagmonProcess.run(
            [
                "run", "--html", paths.html, "--folded", paths.folded, "--speedscope", paths.speedscope,
                "--chrome-trace", paths.trace, "--pprof", paths.pprof, "--", Binaries.demo, "--scenario", "naive",
                "--rows", "3",
            ], json: true)
        guard result.status == 0, let report = result.report else {
            throw ToolFailure(description: "lagmon run failed: \(result.status) \(result.stderr.suffix(800))")
        }
        try JSONReportWriter().render(report).write(to: paths.json)
        return ExportRun(directory: directory, report: report)
    }

    static func get() throws -> ExportRun { try shared.get() }
}

struct ToolFailure: Error, CustomStringConvertible {
    var description: String
}

enum Fixture {
    /// A placeholder report for paths computed before the run.
    static let empty = Report(
        tool: ToolInfo(version: "0"),
        target: TargetInfo(command: ["x"], pid: 1, exitStatus: 0, startedAt: "", monotonicStartNs: 0, wallNs: 0),
        config: RunConfig(thresholdNs: 1), summary: StallSummary(stalls: [], thresholdNs: 1), loops: [], stalls: [],
        watchdog: WatchdogReport(
            wakeups: 0, lateWakeups: 0, latenessMaxNs: 0, latenessP99Ns: 0, toleranceNs: 0, observerPosts: 0),
        diagnostics: [])
}

extension Array where Element == UInt8 {
    func write(to path: String) throws { try Data(self).write(to: URL(fileURLWithPath: path)) }
}

@Suite(.serialized)
struct ExportTests {
    @Test func foldedStacksCountEverySampleOnce() throws {
        let run = try ExportRun.get()
        #expect(run.report.stalls.count == 3)
        let lines = try String(contentsOfFile: run.folded, encoding: .utf8).split(separator: "\n")
        var total = 0
        for line in lines {
            let space = try #require(line.lastIndex(of: " "))
            total += try #require(Int(line[line.index(after: space)...]))
            // The root is the thread's name, without the id that changes from run to run.
            #expect(line.hasPrefix("lagmon-demo;"))
        }
        let samples = run.report.stalls.reduce(0) { $0 + $1.samples }
        // Three stalls of 140–260 ms, sampled every 10 ms from half the threshold: at least one
        // sample each however late a loaded machine runs the sampler.
        #expect(run.report.stalls.allSatisfy { $0.samples >= 1 })
        #expect(total == samples)
        #expect(lines.contains { $0.contains(";static ImageDecoder.decodeImage(_:row:budgetNs:)") })
    }

    @Test func speedscopeMatchesTheFormatsSchema() throws {
        let run = try ExportRun.get()
        let schema = Binaries.packageRoot + "/Tests/Fixtures/speedscope/file-format-schema.json"
        let validate =
            "import json,sys,jsonschema; jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))"
        let checked = try ToolRun.run(["python3", "-c", validate, schema, run.speedscope])
        #expect(checked.status == 0, "\(checked.stderr.suffix(800))")
        // The check itself rejects a file without its $schema.
        var file = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: run.speedscope)))
                as? [String: Any])
        file.removeValue(forKey: "$schema")
        let broken = run.directory + "/broken.speedscope.json"
        try JSONSerialization.data(withJSONObject: file).write(to: URL(fileURLWithPath: broken))
        #expect(try ToolRun.run(["python3", "-c", validate, schema, broken]).status != 0)
        let profiles = try #require(file["profiles"] as? [[String: Any]])
        #expect(profiles.count == run.report.loops.count)
        let weights = try #require(profiles.first?["weights"] as? [UInt64])
        #expect(weights.reduce(0, +) == run.report.summary.totalStallNs)
    }

    @Test func traceHasEveryStallAndIterationOnItsThreadAndCPUCounters() throws {
        let run = try ExportRun.get()
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: run.trace)))
        let events = try #require((object as? [String: Any])?["traceEvents"] as? [[String: Any]])
        let stalls = events.filter { $0["cat"] as? String == "stall" }
        #expect(stalls.count == run.report.stalls.count)
        for (event, stall) in zip(stalls, run.report.stalls) {
            #expect(event["ph"] as? String == "X")
            #expect(event["tid"] as? Int == Int(stall.thread.tid) && event["pid"] as? Int == Int(run.report.target.pid))
            #expect(event["ts"] as? Double == Double(stall.startNs) / 1_000)
            #expect(event["dur"] as? Double == Double(stall.durationNs) / 1_000)
            #expect(event["name"] as? String == "stall #\(stall.id): \(stall.diagnosis.text)")
        }
        let iterations = events.filter { $0["cat"] as? String == "iteration" }
        #expect(iterations.count == run.report.loops.reduce(0) { $0 + $1.longIterations.count })
        // Every stall that ended is a long busy period; one still going when the demo exited (its
        // way out after the last row, on a loaded machine) never ended as one.
        let ended = run.report.stalls.filter { !$0.ongoingAtExit }
        #expect(
            iterations.count >= ended.count,
            "stalls \(run.report.stalls.map { ($0.durationNs, $0.ongoingAtExit, $0.seenLive) })")
        let counters = events.filter { $0["ph"] as? String == "C" }
        #expect(counters.count == run.report.threads.reduce(0) { $0 + $1.cpuSeries.count })
        #expect(!counters.isEmpty)
        #expect(events.contains { $0["ph"] as? String == "M" && $0["name"] as? String == "thread_name" })
    }

    @Test func pprofDecodesWithEverySampleAndReference() throws {
        let run = try ExportRun.get()
        let compressed = try Data(contentsOf: URL(fileURLWithPath: run.pprof))
        #expect(compressed.prefix(2) == Data([0x1f, 0x8b]))
        let unzipped = try ToolRun.run(["gzip", "-dc", run.pprof])
        #expect(unzipped.status == 0)
        let profile = try DecodedProfile(Array(unzipped.stdout))
        #expect(profile.strings.first == "")
        #expect(profile.sampleTypes.map { "\($0.type)/\($0.unit)" } == ["samples/count", "wall/nanoseconds"])
        #expect(profile.period == Int64(run.report.config.sampleIntervalNs))
        let samples = run.report.stalls.reduce(0) { $0 + $1.samples }
        #expect(profile.samples.reduce(0) { $0 + $1.values[0] } == Int64(samples))
        // One time model with speedscope: each stall's samples share its duration.
        for stall in run.report.stalls {
            let own = profile.samples.filter { $0.labels["stall"] == "\(stall.id)" }
            #expect(own.reduce(0) { $0 + $1.values[1] } == Int64(stall.durationNs))
        }
        for sample in profile.samples {
            for id in sample.locationIDs {
                let function = try #require(profile.locationFunctions[id])
                #expect(profile.functionNames[function] != nil)
            }
            #expect(sample.labels["thread"] == "lagmon-demo" && sample.labels["tid"] == "\(run.report.target.pid)")
            #expect(run.report.stalls.map { "\($0.id)" }.contains(sample.labels["stall"] ?? ""))
        }
        // The leaf comes first: the heaviest sample ends in decodeImage.
        let heaviest = try #require(profile.samples.max { $0.values[0] < $1.values[0] })
        let leaf = try #require(heaviest.locationIDs.first.flatMap { profile.locationFunctions[$0] })
        #expect(profile.functionNames[leaf] == "static ImageDecoder.decodeImage(_:row:budgetNs:)")
    }

    @Test func reportRerendersTheSameBytesFromTheSavedJSON() throws {
        let run = try ExportRun.get()
        let again = run.directory + "/again"
        try FileManager.default.createDirectory(atPath: again, withIntermediateDirectories: true)
        let result = try LagmonProcess.run(
            [
                "report", run.json, "--html", again + "/report.html", "--folded", again + "/stalls.folded",
                "--speedscope", again + "/s.json", "--chrome-trace", again + "/t.json", "--pprof", again + "/p.pb.gz",
            ], json: false)
        #expect(result.status == 0, "\(result.stderr)")
        for (first, second) in [
            (run.html, "/report.html"), (run.folded, "/stalls.folded"), (run.speedscope, "/s.json"),
            (run.trace, "/t.json"), (run.pprof, "/p.pb.gz"),
        ] {
            #expect(FileManager.default.contentsEqual(atPath: first, andPath: again + second), "\(second)")
        }
        let summary = try LagmonProcess.run(["report", run.json], json: false)
        #expect(summary.status == 0)
        #expect(summary.stdout.contains("lagmon: 3 stalls over 100ms"))
    }

    @Test func reportRefusesWhatIsNotAReport() throws {
        let missing = try LagmonProcess.run(["report", "/nonexistent/report.json"], json: false)
        #expect(missing.status == 64)
        #expect(missing.lagmonLines.first?.hasPrefix("lagmon: cannot read the report /nonexistent/report.json") == true)
        let other = temporaryPath("other.json")
        try Array("{\"hello\": 1}".utf8).write(to: other)
        let wrong = try LagmonProcess.run(["report", other, "--folded", "-"], json: false)
        #expect(wrong.status == 64)
        #expect(wrong.stderr.contains("is not a lagmon JSON report"))
        let twice = try LagmonProcess.run(["report", other, "--folded", "-", "--html", "-"], json: false)
        #expect(twice.status == 64)
        #expect(twice.stderr.contains("--html and --folded both write to stdout ('-')"), "\(twice.stderr)")
    }
}

/// The folded stacks read by Brendan Gregg's flamegraph.pl. Debian packages no flamegraph.pl, so
/// the test runs only where one is given (`LAGMON_FLAMEGRAPH=/path/to/flamegraph.pl`, or
/// `flamegraph.pl` on PATH); its code is never part of lagmon.
@Suite(.serialized, .enabled(if: FlameGraphTool.path != nil, "flamegraph.pl not found (set LAGMON_FLAMEGRAPH)"))
struct FlameGraphToolTests {
    @Test func flamegraphPlDrawsEveryStackWithItsSamples() throws {
        let run = try ExportRun.get()
        let tool = try #require(FlameGraphTool.path)
        let drawn = try ToolRun.run(["perl", tool, run.folded])
        #expect(drawn.status == 0, "\(drawn.stderr)")
        let svg = drawn.text
        #expect(svg.hasPrefix("<?xml") && svg.contains("</svg>"))
        // The root frame holds every sample; the culprit function is drawn with its count.
        let samples = run.report.stalls.reduce(0) { $0 + $1.samples }
        #expect(svg.contains("<title>all (\(samples) samples, 100%)</title>"), "\(svg.prefix(400))")
        #expect(svg.contains("ImageDecoder.decodeImage"))
        // Unsymbolized frames are one box per module, never one per address.
        #expect(!svg.contains("+0x"))
    }
}

enum FlameGraphTool {
    static let path: String? = {
        let environment = ProcessInfo.processInfo.environment
        if let explicit = environment["LAGMON_FLAMEGRAPH"], FileManager.default.fileExists(atPath: explicit) {
            return explicit
        }
        for directory in (environment["PATH"] ?? "").split(separator: ":") {
            let candidate = "\(directory)/flamegraph.pl"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }()
}
