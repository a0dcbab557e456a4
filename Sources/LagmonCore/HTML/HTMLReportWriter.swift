/// One self-contained HTML page for people: the loop-latency timeline with every stall marked,
/// per-thread CPU over time, a flame graph of all stall samples and one per fingerprint (the
/// stalls that ran the same code merged, with their count), the stall fingerprints and the
/// stall list. Charts are SVG made here; the page loads nothing (no network, no external script
/// or style) and its only script lays the time charts out for the window's width, zooms them
/// (axis included), follows a clicked stall to its flame graph, and makes the flame graphs
/// searchable and zoomable. Long lists are collapsed with their counts. Deterministic: no
/// render date.
public struct HTMLReportWriter: ReportWriter {
    /// Fingerprints drawn with a flame graph of their own, at most (those with the most stall time).
    public var maxStallFlameGraphs: Int
    /// Stalls listed in the table, at most (in order of start).
    public var maxStallRows: Int
    /// Stall rows shown open; the rest are in a closed `<details>` that says how many it holds.
    public var shownStalls: Int
    /// Per-fingerprint flame graphs shown open (the most stall time); the rest are in a closed `<details>`.
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
            <script>\(HTMLPageAssets.timeScript)\(HTMLPageAssets.flameScript)</script>
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
        let sampled = report.stalls.filter { $0.callTree != nil }
        guard !sampled.isEmpty else { return "" }
        let merged = CallTreeNode.merged(sampled.compactMap(\.callTree), rootName: "all stalls")
        let groups = StallFlameGroup.groups(sampled)
        // One fingerprint for every sampled stall: this graph is that group's, and lists them.
        let only = groups.count == 1 ? groups.first : nil
        return """
            <section id="flame-all">
            <h2>Flame graph of all stall samples</h2>
            <p class="dim">\(merged.count) samples from \(SVG.escape(only?.summary ?? "\(sampled.count) stalls"))\(only == nil ? "" : ", one fingerprint"), callers above callees. \(Self.flameLegend)</p>
            \(only.map(Self.stallList) ?? "")
            \(FlameGraphChart(tree: merged, rootLabel: "all stalls", details: CallTreeDetails(stalls: sampled)).html)
            </section>
            """
    }

    /// What a flame graph's colours mean and how to use it.
    static let flameLegend =
        "<span class=\"key app\"></span>the program's code <span class=\"key system\"></span>system and runtime <span class=\"key folded\"></span>folded callees. Click a frame (or focus it and press Enter) to zoom in, Escape or Reset to zoom out; search highlights the frames whose function, module or file contains the text."

    /// One flame graph per group of stalls that ran the same code (StallFlameGroup), the groups
    /// with the most stall time first: the first `shownFlameGraphs` open, the rest (up to
    /// `maxStallFlameGraphs`) in a closed `<details>`. Drawn only when there are several groups
    /// (one group is the graph of all stalls).
    private func stallFlameGraphs(_ report: Report) -> String {
        let groups = StallFlameGroup.groups(report.stalls)
        guard groups.count > 1 else { return "" }
        let drawn = groups.prefix(maxStallFlameGraphs)
        var parts = ["<section id=\"flame-stalls\">", "<h2>Flame graph per fingerprint</h2>"]
        var note = "Stalls that ran the same code (one fingerprint) are one graph, most stall time first."
        if groups.count > drawn.count { note += " The \(drawn.count) with the most stall time of \(groups.count)." }
        parts.append("<p class=\"dim\">\(note)</p>")
        for (index, group) in drawn.enumerated() {
            if index == shownFlameGraphs {
                parts.append("<details id=\"more-flames\">")
                parts.append(
                    "<summary>Show the flame graphs of \(drawn.count - shownFlameGraphs) more fingerprints</summary>")
            }
            let culprit = group.culprit.map { " · <code>\(SVG.escape($0))</code>" } ?? ""
            parts.append("<div class=\"stall-flame\">")
            parts.append("<h3>\(SVG.escape(group.summary))\(culprit) · \(SVG.escape(group.kinds))</h3>")
            parts.append(Self.stallList(group))
            parts.append(
                FlameGraphChart(
                    tree: group.tree, rootLabel: group.summary, details: CallTreeDetails(stalls: group.stalls)
                ).html)
            parts.append("</div>")
        }
        if drawn.count > shownFlameGraphs { parts.append("</details>") }
        parts.append("</section>")
        return parts.joined(separator: "\n")
    }

    /// The group's stalls, one line each, each the target of its links (`#stall-3`); more than
    /// five in a closed `<details>`.
    static func stallList(_ group: StallFlameGroup) -> String {
        let items = group.stalls.map {
            "<li id=\"stall-\($0.id)\">\(SVG.escape($0.exportLabel)) · \(SVG.escape($0.diagnosis.text))</li>"
        }
        let list = "<ul class=\"stall-list\">\n\(items.joined(separator: "\n"))\n</ul>"
        guard items.count > 5 else { return list }
        return "<details class=\"stall-list\"><summary>The \(items.count) stalls</summary>\n\(list)\n</details>"
    }
}
