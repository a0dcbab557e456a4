/// The page `lagmon diff BASELINE CURRENT --html PATH` writes: the diff's verdict, its checks
/// (every metric and stall fingerprint compared, as the terminal lists them) and a
/// differential flame graph of all stall samples (FlameDifference): widths are the current
/// run's, red frames took a larger share of the samples than in the baseline, blue a smaller
/// one, with both counts in each title; below it the functions that ran only in the baseline.
/// Self-contained (the report page's style and flame graph script, nothing loaded) and
/// deterministic.
public struct DiffHTMLWriter: Sendable {
    /// Functions listed as seen only in the baseline, at most.
    public var maxGone: Int

    public init(maxGone: Int = 10) {
        self.maxGone = maxGone
    }

    /// The page for `verdict`, the diff of `baseline` and `current`.
    public func render(baseline: Report, current: Report, verdict: GateVerdict) -> [UInt8] {
        let sections = [
            header(baseline: baseline, current: current, verdict: verdict), checks(verdict),
            flameGraph(baseline: baseline, current: current),
        ]
        let page = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="generator" content="lagmon \(SVG.escape(current.tool.version))">
            <title>\(SVG.escape("lagmon diff: \(HTMLReportWriter.commandName(current))"))</title>
            <style>\(HTMLPageAssets.style)</style>
            </head>
            <body>
            \(sections.filter { !$0.isEmpty }.joined(separator: "\n"))
            <script>\(HTMLPageAssets.flameScript)</script>
            </body>
            </html>

            """
        return Array(page.utf8)
    }

    private func header(baseline: Report, current: Report, verdict: GateVerdict) -> String {
        func run(_ label: String, _ report: Report) -> String {
            let stalls = report.summary.stallCount
            return
                "<p><strong>\(label)</strong> <code>\(SVG.escape(TargetCommand.display(report.target.command)))</code>, started \(SVG.escape(report.target.startedAt)): \(stalls) stall\(stalls == 1 ? "" : "s"), \(report.stalls.reduce(0) { $0 + $1.samples }) stack samples.</p>"
        }
        return """
            <header>
            <h1>lagmon diff <span class="dim">\(SVG.escape(verdict.subject))</span></h1>
            \(run("Baseline", baseline))
            \(run("Current", current))
            <p class="verdict \(verdict.passed ? "passed" : "failed")"><strong>\(SVG.escape(verdict.line))</strong></p>
            </header>
            """
    }

    /// Every check of the diff: what it compared, the change, its limit and whether it held.
    private func checks(_ verdict: GateVerdict) -> String {
        guard !verdict.checks.isEmpty else { return "" }
        let rows = verdict.checks.map { check in
            let result = check.passed ? (check.severity == .info ? "—" : "ok") : "FAIL"
            return
                "<tr class=\"\(check.passed ? "held" : "regressed")\"><td><code>\(SVG.escape(check.name))</code></td><td>\(SVG.escape(check.measured))</td><td>\(SVG.escape(check.limit))</td><td>\(result)</td></tr>"
        }
        return """
            <section id="checks">
            <h2>Metrics and stall fingerprints</h2>
            <table class="diff-table">
            <thead><tr><th>compared</th><th>baseline → current</th><th>limit</th><th>result</th></tr></thead>
            <tbody>
            \(rows.joined(separator: "\n"))
            </tbody>
            </table>
            </section>
            """
    }

    private func flameGraph(baseline: Report, current: Report) -> String {
        let before = CallTreeNode.merged(baseline.stalls.compactMap(\.callTree), rootName: "baseline")
        let now = CallTreeNode.merged(current.stalls.compactMap(\.callTree), rootName: "current")
        guard now.count > 0 || before.count > 0 else {
            return
                "<section id=\"flame-diff\">\n<h2>Differential flame graph</h2>\n<p class=\"dim\">Neither report has stack samples.</p>\n</section>"
        }
        let difference = FlameDifference(baseline: before, current: now)
        let chart =
            now.count > 0
            ? FlameGraphChart(
                tree: now, rootLabel: "current run", details: CallTreeDetails(stalls: current.stalls),
                difference: difference
            ).html : "<p class=\"dim\">The current report has no stack samples.</p>"
        return """
            <section id="flame-diff">
            <h2>Differential flame graph</h2>
            <p class="dim">All stall samples of the current run (\(now.count)) against the baseline's (\(before.count)), callers above callees; each frame is as wide as its share of the current samples and coloured by how that share changed: <span class="key grew"></span>grew <span class="key shrank"></span>shrank <span class="key same"></span>unchanged (the deeper the colour, the larger the change). Hover a frame for both runs' counts; click to zoom, search to highlight.</p>
            \(chart)
            \(goneList(difference))
            </section>
            """
    }

    /// The largest frames that ran only in the baseline (a differential graph draws the current run).
    private func goneList(_ difference: FlameDifference) -> String {
        let gone = difference.gone.prefix(maxGone)
        guard !gone.isEmpty else { return "" }
        let items = gone.map { entry in
            let leaf = entry.path.last.map { "\($0.name) (\($0.module))" } ?? ""
            return
                "<li><code>\(SVG.escape(leaf))</code>: \(entry.count) samples <span class=\"dim\">\(SVG.escape(FlameDifference.text(entry.path)))</span></li>"
        }
        return """
            <h3>Only in the baseline</h3>
            <ul class="gone">
            \(items.joined(separator: "\n"))
            </ul>
            """
    }
}
