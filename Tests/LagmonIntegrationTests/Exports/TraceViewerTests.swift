import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// What Chrome DevTools' trace engine read of a trace (Tests/Fixtures/chromium/trace.py).
struct DevToolsTrace: Decodable {
    struct Sample: Decodable {
        var function: String?
        var ts: Double
    }
    struct Profile: Decodable {
        var pid: Int32
        var tid: Int32
        var samples: [Sample]
    }
    struct Entry: Decodable {
        var name: String
        var function: String?
        var ts: Double
        var dur: Double
    }
    struct Track: Decodable {
        var pid: Int32
        var tid: Int32
        var entries: [Entry]
    }
    var profiles: [Profile]
    var tracks: [Track]

    static func read(_ trace: String) throws -> DevToolsTrace {
        let script = Binaries.packageRoot + "/Tests/Fixtures/chromium/trace.py"
        let run = try ToolRun.run(["timeout", "90", "python3", script, trace])
        guard run.status == 0 else { throw ToolFailure(description: "trace.py failed: \(run.output.suffix(800))") }
        return try JSONDecoder().decode(DevToolsTrace.self, from: run.stdout)
    }
}

/// The trace export opened by a real trace viewer: Chrome DevTools' Performance panel importer,
/// bundled in Chromium (the Perfetto UI and trace_processor cannot be installed here: their
/// binaries are downloaded at run time). Its samples must be the report's, at their times, under
/// their stalls.
@Suite(
    .serialized,
    .enabled(if: ChromiumBrowser.installed, "chromium is not installed (scripts/install-deps installs it)"))
struct TraceViewerTests {
    @Test func devToolsShowsEachStallsSamplesAtTheirTimesOnTheStalledThread() throws {
        let run = try DemoPageRun.get()
        let trace = try DevToolsTrace.read(run.trace)
        let stalls = run.report.stalls.filter { $0.callTree != nil }
        try #require(!stalls.isEmpty)
        let tid = stalls[0].thread.tid
        let profile = try #require(trace.profiles.first { $0.tid == tid && $0.pid == run.report.target.pid })
        // The report's samples, in order, each at its node's function; an `(idle)` sample ends each stall.
        var expected: [(function: String, microseconds: Double)] = []
        for stall in stalls {
            let nodes = Self.preorder(try #require(stall.callTree))
            for sample in stall.sampleTimeline ?? [] {
                let name = sample.node == 0 ? "(root)" : nodes[sample.node].name
                expected.append((name, Double((stall.startNs + sample.offsetNs) / 1_000)))
            }
            expected.append(("(idle)", Double((stall.startNs + stall.durationNs) / 1_000)))
        }
        #expect(profile.samples.count == expected.count)
        #expect(stalls.reduce(0) { $0 + $1.samples } == expected.count - stalls.count)
        for (read, sample) in zip(profile.samples, expected) {
            #expect(read.function == sample.function && abs(read.ts - sample.microseconds) < 1, "\(read) \(sample)")
        }
        // The Performance panel draws the culprit's calls on the thread's track inside each stall.
        let track = try #require(trace.tracks.first { $0.tid == tid })
        for stall in stalls {
            let start = Double(stall.startNs) / 1_000
            let end = start + Double(stall.durationNs) / 1_000
            #expect(track.entries.contains { $0.name.hasPrefix("stall #\(stall.id):") })
            let culprit = try #require(stall.culprit?.symbol)
            let calls = track.entries.filter { $0.name == "ProfileCall" && $0.function == culprit }
            #expect(calls.contains { $0.ts >= start - 1 && $0.ts + $0.dur <= end + 1 }, "stall #\(stall.id)")
        }
    }

    static func preorder(_ node: CallTreeNode) -> [CallTreeNode] {
        [node] + node.children.flatMap { preorder($0) }
    }
}

/// Two real runs of the loop fixture: each stall spins 250 ms in `spin_for_250ms_in_c_loop`;
/// the second run's stalls then spin 250 ms more in `spin_more_in_c_loop`. Against the first,
/// the second's `spin_for_250ms_in_c_loop` shrank (from every sample to about half) and
/// `spin_more_in_c_loop` grew (from none).
@Suite(
    .serialized,
    .enabled(if: ChromiumBrowser.installed, "chromium is not installed (scripts/install-deps installs it)"))
struct DiffPageChromiumTests {
    static func run(_ json: String, _ extra: [String]) throws -> Report {
        let result = try LagmonProcess.run(
            ["run", "--json", json, "--", Binaries.loopFixture, "stall", "--stalls", "2"] + extra, json: false)
        guard result.status == 0 else {
            throw ToolFailure(description: "lagmon run failed: \(result.status) \(result.stderr.suffix(800))")
        }
        return try JSONReportWriter.decode(Array(try Data(contentsOf: URL(fileURLWithPath: json))))
    }

    @Test func theDiffPageDrawsTheGrownFunctionRedAndTheShrunkOneBlue() throws {
        let directory = temporaryPath("diff-page")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let baseline = try Self.run(directory + "/base.json", [])
        let current = try Self.run(directory + "/current.json", ["--then-spin-ms", "250"])
        let page = directory + "/diff.html"
        let diff = try LagmonProcess.run(
            ["diff", directory + "/base.json", directory + "/current.json", "--html", page, "--allow-new-stalls"],
            json: false)
        // Longer stalls are a regression beyond the default tolerance: the verdict fails, the page is written.
        #expect(diff.status == 99, "\(diff.stderr.suffix(800))")
        let views = try FlameView.drive(
            page, width: 1400, graph: "#flame-diff", ["measure", "shot=\(directory)/diff-1400.png"])
        let view = try #require(views.first)
        func rgb(_ fill: String) -> [Int] {
            fill.dropFirst(4).dropLast().split(separator: ",").compactMap {
                Int($0.trimmingCharacters(in: .whitespaces))
            }
        }
        let shrunk = try #require(view.frames.first { $0.name == "spin_for_250ms_in_c_loop" })
        let grown = try #require(view.frames.first { $0.name == "spin_more_in_c_loop" })
        let (blue, red) = (rgb(shrunk.fill), rgb(grown.fill))
        #expect(blue.count == 3 && blue[2] == 255 && blue[0] < 200, "\(shrunk.fill)")
        #expect(red.count == 3 && red[0] == 255 && red[2] < 100, "\(grown.fill)")
        // Both runs' counts are in the title: the baseline's from its own report.
        let before = baseline.stalls.compactMap(\.callTree).reduce(0) {
            $0 + Self.samples(of: "spin_for_250ms_in_c_loop", in: $1)
        }
        #expect(shrunk.title.contains("baseline: \(before) samples"), "\(shrunk.title)")
        #expect(grown.title.contains("baseline: not seen"))
        let after = current.stalls.compactMap(\.callTree).reduce(0) {
            $0 + Self.samples(of: "spin_more_in_c_loop", in: $1)
        }
        #expect(grown.samples == after && after > 0)
        // The callers every sample passed through in both runs did not change.
        let caller = try #require(view.frames.first { $0.name == "run_stall" })
        #expect(rgb(caller.fill) == [224, 224, 224], "\(caller.fill)")
    }

    /// Samples through frames named `name` in `node`'s tree.
    static func samples(of name: String, in node: CallTreeNode) -> Int {
        node.children.reduce(0) { $0 + ($1.name == name ? $1.count : samples(of: name, in: $1)) }
    }
}
