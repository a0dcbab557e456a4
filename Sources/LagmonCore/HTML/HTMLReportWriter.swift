/// One self-contained HTML page for people: the loop-latency timeline with every stall marked,
/// per-thread CPU over time, a flame graph of all stall samples and one per stall, the stall
/// fingerprints and the stall list. Charts are SVG made here; the page loads nothing (no
/// network, no external script or style) and its only script lays the time charts out for the
/// window's width, zooms them (axis included) and follows a clicked stall to its flame graph.
/// Long stall lists are collapsed with their counts. Deterministic: no render date.
public struct HTMLReportWriter: ReportWriter {
    /// Stalls drawn with a flame graph of their own, at most (the longest ones).
    public var maxStallFlameGraphs: Int
    /// Stalls listed in the table, at most (in order of start).
    public var maxStallRows: Int
    /// Stall rows shown open; the rest are in a closed `<details>` that says how many it holds.
    public var shownStalls: Int
    /// Per-stall flame graphs shown open (the longest stalls); the rest are in a closed `<details>`.
    public var shownFlameGraphs: Int

    public init(
        maxStallFlameGraphs: Int = 50, maxStallRows: Int = 500, shownStalls: Int = 20, shownFlameGraphs: Int = 10
    ) {
        self.maxStallFlameGraphs = maxStallFlameGraphs
        self.maxStallRows = maxStallRows
        self.shownStalls = shownStalls
        self.shownFlameGraphs = shownFlameGraphs
    }

    public func render(_ report: Report) throws -> [UInt8] {
        let sections = [
            header(report), timeline(report), cpu(report), allStallsFlameGraph(report),
            HTMLTables.fingerprints(report), HTMLTables.stalls(report, maxRows: maxStallRows, shownRows: shownStalls),
            stallFlameGraphs(report), HTMLTables.diagnostics(report),
        ]
        let title = "lagmon: \(Self.commandName(report))"
        let page = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="generator" content="lagmon \(SVG.escape(report.tool.version))">
            <title>\(SVG.escape(title))</title>
            <style>\(HTMLPageAssets.style)</style>
            </head>
            <body data-span-seconds="\(DurationText.fixed(Double(report.target.wallNs) / 1e9, digits: 6))">
            \(sections.filter { !$0.isEmpty }.joined(separator: "\n"))
            <script>\(HTMLPageAssets.script)</script>
            </body>
            </html>

            """
        return Array(page.utf8)
    }

    static func commandName(_ report: Report) -> String {
        report.target.command.first.map { PathText.lastComponent($0) } ?? "target"
    }

    private func header(_ report: Report) -> String {
        let target = report.target
        let wall = DurationText.format(nanoseconds: target.wallNs)
        let ending = target.signalName.map { "killed by \($0)" } ?? "exited with status \(target.exitStatus ?? 0)"
        let lifetime =
            target.attached == true
            ? "Attached \(SVG.escape(target.startedAt)), watched for \(wall) \(target.exited == true ? "until it exited" : "and left running")"
            : "Started \(SVG.escape(target.startedAt)), \(ending) after \(wall)"
        let summary = report.summary
        let stalls =
            summary.stallCount == 0
            ? "no stalls over \(DurationText.format(nanoseconds: report.config.thresholdNs))"
            : "\(summary.stallCount) stall\(summary.stallCount == 1 ? "" : "s") over \(DurationText.format(nanoseconds: report.config.thresholdNs)): longest \(DurationText.format(nanoseconds: summary.longestStallNs)), total \(DurationText.format(nanoseconds: summary.totalStallNs))"
        let loops = LoopGroup.groups(report.loops).map { group in
            guard group.loops.count == 1, let loop = group.loops.first else { return group.summary }
            return
                "\(loop.observer) loop on \(loop.thread.exportLabel): \(loop.iterations) iterations, busy \(DurationText.fixed(loop.busyRatio * 100, digits: 1))%, busy periods p50 \(DurationText.format(nanoseconds: loop.latency.p50Ns)) · p99 \(DurationText.format(nanoseconds: loop.latency.p99Ns)) · max \(DurationText.format(nanoseconds: loop.latency.maxNs)), \(loop.longIterations.count + loop.longIterationsOmitted) long iterations"
        }
        return """
            <header>
            <h1>\(SVG.escape(Self.commandName(report))) <span class="dim">pid \(target.pid)</span></h1>
            <p class="command"><code>\(SVG.escape(target.command.joined(separator: " ")))</code></p>
            <p>\(lifetime). <strong id="stall-summary">\(SVG.escape(stalls))</strong>.</p>
            \(loops.map { "<p class=\"dim\">\(SVG.escape($0))</p>" }.joined(separator: "\n"))
            </header>
            """
    }

    private func timeline(_ report: Report) -> String {
        let kinds = ["cpu", "runqueue", "syscall", "sleep", "lock", "io", "unknown"]
        let legend = kinds.map { "<span class=\"key kind-\($0)\"></span>\($0)" }.joined(separator: " ")
        return """
            <section id="timeline-section">
            <h2>Loop latency timeline</h2>
            <p class="dim">Each stall spans its interval and is as tall as it was long (hover for details, click for its flame graph); grey bands are long iterations; the dashed line is the threshold. Drag across a chart to zoom, double-click to reset. <span id="zoom-range"></span></p>
            \(TimelineChart(report: report).svg)
            <p class="legend kinds">\(legend) <span class="key iteration"></span>long iteration</p>
            </section>
            """
    }

    private func cpu(_ report: Report) -> String {
        let chart = CPUChart(report: report)
        guard let svg = chart.svg else { return "" }
        return """
            <section id="cpu-section">
            <h2>CPU per thread</h2>
            <p class="dim">Percent of one core per reading interval (\(DurationText.format(nanoseconds: report.config.cpuIntervalNs)), merged on long runs); squares are CPU alerts.</p>
            \(svg)
            \(chart.legendHTML)
            </section>
            """
    }

    private func allStallsFlameGraph(_ report: Report) -> String {
        let trees = report.stalls.compactMap(\.callTree)
        guard !trees.isEmpty else { return "" }
        let merged = CallTreeNode.merged(trees, rootName: "all stalls")
        return """
            <section id="flame-all">
            <h2>Flame graph of all stall samples</h2>
            <p class="dim">\(merged.count) samples from \(trees.count) stalls, callers above callees; warm frames are the program's code, cool ones the system's.</p>
            \(FlameGraphChart(tree: merged, rootLabel: "all stalls").svg)
            </section>
            """
    }

    private func stallFlameGraphs(_ report: Report) -> String {
        let sampled = report.stalls.filter { $0.callTree != nil }
        guard !sampled.isEmpty else { return "" }
        let longest = sampled.sorted { ($1.durationNs, $0.id) < ($0.durationNs, $1.id) }.prefix(maxStallFlameGraphs)
        let drawn = Set(longest.map(\.id))
        var parts = ["<section id=\"flame-stalls\">", "<h2>Flame graph per stall</h2>"]
        if sampled.count > drawn.count {
            parts.append("<p class=\"dim\">The \(drawn.count) longest of \(sampled.count) sampled stalls.</p>")
        }
        // The longest ones open, each in order of start; the others in a closed <details>.
        let open = Set(longest.prefix(shownFlameGraphs).map(\.id))
        let drawnStalls =
            sampled.filter { open.contains($0.id) } + sampled.filter { drawn.contains($0.id) && !open.contains($0.id) }
        for (index, stall) in drawnStalls.enumerated() {
            guard let tree = stall.callTree else { continue }
            if index == open.count {
                parts.append("<details id=\"more-flames\">")
                parts.append(
                    "<summary>Show the flame graphs of \(drawnStalls.count - open.count) more stalls</summary>")
            }
            parts.append("<div class=\"stall-flame\" id=\"stall-\(stall.id)\">")
            parts.append("<h3>\(SVG.escape(stall.exportLabel)) · \(SVG.escape(stall.diagnosis.text))</h3>")
            parts.append(FlameGraphChart(tree: tree, rootLabel: "stall #\(stall.id)").svg)
            parts.append("</div>")
        }
        if drawnStalls.count > open.count { parts.append("</details>") }
        parts.append("</section>")
        return parts.joined(separator: "\n")
    }
}
