import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// One `lagmon run` of the naive demo with its six rows (six stalls decoding images on the main
/// thread, one fingerprint), writing the page and the trace; shared by the tests below.
struct DemoPageRun: Sendable {
    let directory: String
    let report: Report

    var html: String { directory + "/report.html" }
    var trace: String { directory + "/trace.json" }

    static let shared: Result<DemoPageRun, any Error> = Result {
        let directory = temporaryPath("demo-page")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let result = try LagmonProcess.run(
            [
                "run", "--html", directory + "/report.html", "--chrome-trace", directory + "/trace.json", "--",
                Binaries.demo, "--scenario", "naive",
            ], json: true)
        guard result.status == 0, let report = result.report else {
            throw ToolFailure(description: "lagmon run failed: \(result.status) \(result.stderr.suffix(800))")
        }
        return DemoPageRun(directory: directory, report: report)
    }

    static func get() throws -> DemoPageRun { try shared.get() }

    /// The stalls with samples merged as the page's graph of all stalls merges them.
    var merged: CallTreeNode {
        let trees = report.stalls.compactMap(\.callTree)
        return CallTreeNode(
            name: "all stalls", module: "", count: trees.reduce(0) { $0 + $1.count },
            children: trees.flatMap(\.children))
    }
}

/// What flame.py measured of a graph at one step.
struct FlameView: Decodable {
    struct Box: Decodable {
        var left: Double
        var right: Double
        var width: Double
    }
    struct Frame: Decodable {
        var left: Double
        var width: Double
        var name: String
        var title: String
        var samples: Int
        /// Samples left of it in the graph (`data-o`): with `samples`, the span of samples it covers.
        var offset: Int
        var depth: Int
        var drawn: Bool
        var classes: [String]
        var label: String?
        var fill: String
    }
    var graph: Box
    var status: String
    var resetDisabled: Bool
    var frames: [Frame]

    /// Runs flame.py on `page` at `width` px with `steps`; one view per `measure` step.
    static func drive(_ page: String, width: Int, graph: String, _ steps: [String]) throws -> [FlameView] {
        let script = Binaries.packageRoot + "/Tests/Fixtures/chromium/flame.py"
        let run = try ToolRun.run(["timeout", "90", "python3", script, page, String(width), "1000", graph] + steps)
        guard run.status == 0 else { throw ToolFailure(description: "flame.py failed: \(run.output.suffix(800))") }
        return try JSONDecoder().decode([FlameView].self, from: run.stdout)
    }

    /// The frames drawn (not hidden by a zoom).
    var drawn: [Frame] { frames.filter(\.drawn) }
}

/// The page's flame graphs used as a person would in headless Chromium: search, click to zoom,
/// keyboard zoom, source lines, one graph for the demo's six stalls of one fingerprint.
@Suite(
    .serialized,
    .enabled(if: ChromiumBrowser.installed, "chromium is not installed (scripts/install-deps installs it)"))
struct FlameGraphChromiumTests {
    /// Samples under frames whose function contains `text` (any case), a sample under two such
    /// frames counted once: what the page's search must report.
    static func samples(matching text: String, in node: CallTreeNode) -> Int {
        node.children.reduce(0) { sum, child in
            sum
                + (child.name.lowercased().contains(text.lowercased())
                    ? child.count : samples(matching: text, in: child))
        }
    }

    @Test func theDemosSixStallsOfOneFingerprintAreOneGraphWithTheirCount() throws {
        let run = try DemoPageRun.get()
        let sampled = run.report.stalls.filter { $0.callTree != nil }
        #expect(run.report.stalls.count == 6 && sampled.count == 6, "\(run.report.stalls.map(\.samples))")
        #expect(Set(sampled.compactMap(\.fingerprint)).count == 1)
        let dom = try HTMLChromiumTests.chromium(["--dump-dom"], page: run.html)
        #expect(dom.text.contains("data-ready=\"yes\""))
        #expect(dom.text.components(separatedBy: "class=\"chart flame\"").count - 1 == 1)
        #expect(!dom.text.contains("id=\"flame-stalls\""))
        let durations = sampled.map(\.durationNs)
        let range =
            "\(DurationText.format(nanoseconds: durations.min() ?? 0))–\(DurationText.format(nanoseconds: durations.max() ?? 0))"
        let samples = sampled.reduce(0) { $0 + $1.samples }
        #expect(dom.text.contains("\(samples) samples from 6 stalls, \(range), one fingerprint"), "\(range)")
        for stall in sampled { #expect(dom.text.contains("<li id=\"stall-\(stall.id)\">")) }
    }

    @Test(arguments: [800, 1400])
    func searchHighlightsTheMatchingFramesAndSaysTheirShareOfTheSamples(_ width: Int) throws {
        let run = try DemoPageRun.get()
        let total = run.merged.count
        for query in ["decodeImage", "CFRunLoop"] {
            let views = try FlameView.drive(
                run.html, width: width, graph: "#flame-all", ["search=\(query)", "measure"])
            let view = try #require(views.first)
            // The frames highlighted are exactly those whose function, module or file has the text.
            for frame in view.frames where frame.depth > 0 {
                let words = frame.title.split(separator: "\n").dropLast().joined(separator: "\n").lowercased()
                #expect(frame.classes.contains("match") == words.contains(query.lowercased()), "\(frame.name)")
            }
            #expect(view.frames.contains { $0.classes.contains("match") })
            let matched = Self.samples(matching: query, in: run.merged)
            let percent = String(format: "%.1f", Double(matched) * 100 / Double(total))
            #expect(view.status.hasPrefix("Matched \(matched) of \(total) samples (\(percent)%)"), "\(view.status)")
        }
    }

    /// The widest frame narrower than the whole graph, deepest first among equals: zooming into it
    /// hides the frames beside it. When every sample ran one stack, the deepest frame.
    static func zoomable(_ view: FlameView) -> FlameView.Frame? {
        let total = view.frames.first?.samples ?? 0
        let narrower = view.frames.filter { $0.samples < total && $0.samples > 0 }
        return (narrower.isEmpty ? Array(view.frames.dropFirst()) : narrower).max {
            ($0.samples, $0.depth) < ($1.samples, $1.depth)
        }
    }

    /// Whether `frame` is a caller of `target`: shallower, and its samples include the target's.
    static func isCaller(_ frame: FlameView.Frame, of target: FlameView.Frame) -> Bool {
        frame.depth < target.depth && frame.offset <= target.offset
            && frame.offset + frame.samples >= target.offset + target.samples
    }

    /// Whether `frame` is `target` or one of its callees: no shallower, and its samples among the target's.
    static func isInside(_ frame: FlameView.Frame, _ target: FlameView.Frame) -> Bool {
        frame.depth >= target.depth && frame.offset >= target.offset
            && frame.offset + frame.samples <= target.offset + target.samples
    }

    @Test(arguments: [800, 1400])
    func clickingAFrameZoomsItToTheFullWidthAndResetRestoresTheGraph(_ width: Int) throws {
        let run = try DemoPageRun.get()
        let before = try #require(try FlameView.drive(run.html, width: width, graph: "#flame-all", ["measure"]).first)
        let target = try #require(Self.zoomable(before))
        let views = try FlameView.drive(
            run.html, width: width, graph: "#flame-all",
            ["measure", "click=\(target.name)", "measure", "reset", "measure"])
        try #require(views.count == 3)
        let (start, zoomed, reset) = (views[0], views[1], views[2])
        #expect(start.resetDisabled && !zoomed.resetDisabled && reset.resetDisabled)
        let frame = try #require(zoomed.drawn.first { $0.name == target.name && $0.depth == target.depth })
        // The zoomed frame spans the graph; its callees scale with it; frames beside it are hidden.
        #expect(abs(frame.width - zoomed.graph.width) < 1 && abs(frame.left - zoomed.graph.left) < 1, "\(frame)")
        // Callees are as wide as their share of the zoomed frame's samples (exact, not the rounded old width scaled).
        for new in zoomed.frames where new.drawn && new.depth > target.depth {
            let expected = zoomed.graph.width * Double(new.samples) / Double(target.samples)
            #expect(abs(new.width - expected) < 1, "\(new.name)")
        }
        // Hidden: exactly the frames neither above the zoomed frame (its callers) nor inside it. A
        // frame narrower than the root may hide none: samples whose stack ends in one of its callers.
        let beside = start.frames.filter { !Self.isCaller($0, of: target) && !Self.isInside($0, target) }
        #expect(zoomed.drawn.count == start.drawn.count - beside.count, "\(beside.map(\.name))")
        #expect(zoomed.status.hasPrefix("Zoomed into \(target.name): \(target.samples) samples"), "\(zoomed.status)")
        // Reset: every frame back where it was.
        for (old, new) in zip(start.frames, reset.frames) {
            #expect(new.drawn == old.drawn && abs(new.left - old.left) < 0.5 && abs(new.width - old.width) < 0.5)
        }
    }

    @Test func theKeyboardZoomsAFocusedFrameAndEscapeZoomsOut() throws {
        let run = try DemoPageRun.get()
        let start = try #require(try FlameView.drive(run.html, width: 1400, graph: "#flame-all", ["measure"]).first)
        let target = try #require(Self.zoomable(start))
        let views = try FlameView.drive(
            run.html, width: 1400, graph: "#flame-all", ["enter=\(target.name)", "measure", "escape", "measure"])
        try #require(views.count == 2)
        let frame = try #require(views[0].drawn.first { $0.name == target.name && $0.depth == target.depth })
        #expect(abs(frame.width - views[0].graph.width) < 1)
        #expect(views[1].resetDisabled && views[1].drawn.count == start.drawn.count)
    }

    @Test func framesWithASourceLineShowIt() throws {
        let run = try DemoPageRun.get()
        let view = try #require(try FlameView.drive(run.html, width: 1400, graph: "#flame-all", ["measure"]).first)
        // decodeImage's lines in the report's stacks (the demo is built with debug information).
        let decodeLines = Set(
            run.report.stalls.flatMap(\.stacks).flatMap(\.frames).filter { $0.symbol?.contains("decodeImage") == true }
                .compactMap { frame in
                    frame.file.flatMap { file in frame.line.map { "\(PathText.lastComponent(file)):\($0)" } }
                })
        #expect(!decodeLines.isEmpty)
        let decode = try #require(view.frames.first { $0.name.contains("decodeImage") })
        let label = try #require(decode.label)
        #expect(decodeLines.contains { label.hasSuffix(" · \($0)") }, "\(label) not at one of \(decodeLines)")
        #expect(decode.title.contains("ImageDecoder.swift:"))
        // The program's frames and the system's are told apart.
        #expect(decode.classes.contains("app"))
        #expect(view.frames.contains { $0.classes.contains("system") })
        // Every label with a place names a file and line the title gives in full.
        for frame in view.frames {
            guard let label = frame.label, let dot = label.range(of: " · ", options: .backwards) else { continue }
            #expect(frame.title.contains(String(label[dot.upperBound...])), "\(frame.title)")
        }
    }

    @Test(arguments: [800, 1400])
    func screenshotsOfTheSearchedAndZoomedGraph(_ width: Int) throws {
        let run = try DemoPageRun.get()
        let start = try #require(try FlameView.drive(run.html, width: width, graph: "#flame-all", ["measure"]).first)
        let target = try #require(Self.zoomable(start))
        let searched = run.directory + "/flame-search-\(width).png"
        let zoomed = run.directory + "/flame-zoom-\(width).png"
        _ = try FlameView.drive(
            run.html, width: width, graph: "#flame-all",
            ["search=decodeImage", "shot=\(searched)", "click=\(target.name)", "shot=\(zoomed)"])
        for png in [searched, zoomed] {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: png))
            #expect(bytes.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]) && bytes.count > 10_000, "\(png)")
        }
    }
}
