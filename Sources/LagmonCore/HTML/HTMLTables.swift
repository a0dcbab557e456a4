/// The HTML report's tables: fingerprints, stalls, diagnostics.
enum HTMLTables {
    static func fingerprints(_ report: Report) -> String {
        guard !report.fingerprints.isEmpty else { return "" }
        let rows = report.fingerprints.map { group in
            let frames = group.frames.map { "<code>\(SVG.escape($0))</code>" }.joined(separator: " ← ")
            let ids = group.stallIds.prefix(50).map { "<a href=\"#stall-\($0)\">#\($0)</a>" }.joined(separator: " ")
            return
                "<tr><td><code>\(group.id)</code></td><td class=\"num\">\(group.count)</td><td class=\"num\">\(DurationText.format(nanoseconds: group.totalNs))</td><td class=\"num\">\(DurationText.format(nanoseconds: group.worstNs))</td><td>\(frames)</td><td>\(ids)\(group.stallIds.count > 50 ? " …" : "")</td></tr>"
        }
        return """
            <section id="fingerprints">
            <h2>Stall fingerprints</h2>
            <table>
            <thead><tr><th>fingerprint</th><th>stalls</th><th>total</th><th>worst</th><th>code (innermost first)</th><th>stalls</th></tr></thead>
            <tbody>
            \(rows.joined(separator: "\n"))
            </tbody>
            </table>
            </section>
            """
    }

    /// The stall list: the first `shownRows` stalls in a table, the rest (up to `maxRows`) in a
    /// closed `<details>` that says how many there are, so a long run's page stays short.
    static func stalls(_ report: Report, maxRows: Int, shownRows: Int) -> String {
        guard !report.stalls.isEmpty else { return "" }
        let listed = report.stalls.prefix(maxRows)
        let rows = listed.map(stallRow)
        let shown = min(shownRows, rows.count)
        var parts = ["<section id=\"stalls\">", "<h2>Stalls</h2>", stallTable(rows[..<shown])]
        if rows.count > shown {
            parts.append("<details id=\"more-stalls\">")
            parts.append(
                "<summary>Show all \(report.stalls.count) stalls (\(rows.count - shown) more listed)</summary>")
            parts.append(stallTable(rows[shown...]))
            parts.append("</details>")
        }
        if report.stalls.count > maxRows {
            parts.append("<p class=\"dim\">\(report.stalls.count - maxRows) more stalls not listed.</p>")
        }
        parts.append("</section>")
        return parts.joined(separator: "\n")
    }

    private static func stallTable(_ rows: ArraySlice<String>) -> String {
        """
        <table class="stall-table">
        <thead><tr><th>stall</th><th>start</th><th>duration</th><th>activity</th><th>diagnosis</th><th>culprit</th><th>samples</th><th>thread</th></tr></thead>
        <tbody>
        \(rows.joined(separator: "\n"))
        </tbody>
        </table>
        """
    }

    /// One stall's row; the culprit's cell wraps long names and has the full text as its title.
    private static func stallRow(_ stall: StallReport) -> String {
        let culprit =
            stall.culprit.map {
                "<td class=\"culprit\" title=\"\(SVG.escape("\($0.displayName) (\($0.module))"))\"><code>\(SVG.escape($0.displayName))</code> <span class=\"dim\">\(SVG.escape($0.module))</span></td>"
            } ?? "<td class=\"culprit\">—</td>"
        return
            "<tr class=\"kind-row-\(stall.diagnosis.kind.rawValue)\"><td><a href=\"#stall-\(stall.id)\">#\(stall.id)</a></td><td class=\"num\">\(TimeAxis.instant(stall.startNs))</td><td class=\"num\">\(DurationText.format(nanoseconds: stall.durationNs))</td><td>\(SVG.escape(stall.activity))</td><td class=\"diagnosis\">\(SVG.escape(stall.diagnosis.text))</td>\(culprit)<td class=\"num\">\(stall.samples)</td><td>\(SVG.escape(stall.thread.exportLabel))</td></tr>"
    }

    static func diagnostics(_ report: Report) -> String {
        guard !report.diagnostics.isEmpty else { return "" }
        let items = report.diagnostics.map {
            "<li class=\"\($0.severity.rawValue)\"><code>\(SVG.escape($0.code))</code> \(SVG.escape($0.message))</li>"
        }
        return
            "<section id=\"diagnostics\">\n<h2>Diagnostics</h2>\n<ul>\n\(items.joined(separator: "\n"))\n</ul>\n</section>"
    }
}
