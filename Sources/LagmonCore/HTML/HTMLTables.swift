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

    static func stalls(_ report: Report, maxRows: Int) -> String {
        guard !report.stalls.isEmpty else { return "" }
        let rows = report.stalls.prefix(maxRows).map { stall in
            let culprit =
                stall.culprit.map {
                    "<code>\(SVG.escape($0.displayName))</code> <span class=\"dim\">\(SVG.escape($0.module))</span>"
                } ?? "—"
            return
                "<tr class=\"kind-row-\(stall.diagnosis.kind.rawValue)\"><td><a href=\"#stall-\(stall.id)\">#\(stall.id)</a></td><td class=\"num\">\(TimeAxis.instant(stall.startNs))</td><td class=\"num\">\(DurationText.format(nanoseconds: stall.durationNs))</td><td>\(SVG.escape(stall.activity))</td><td>\(SVG.escape(stall.diagnosis.text))</td><td>\(culprit)</td><td class=\"num\">\(stall.samples)</td><td>\(SVG.escape(stall.thread.exportLabel))</td></tr>"
        }
        let more =
            report.stalls.count > maxRows
            ? "<p class=\"dim\">\(report.stalls.count - maxRows) more stalls not listed.</p>" : ""
        return """
            <section id="stalls">
            <h2>Stalls</h2>
            <table>
            <thead><tr><th>stall</th><th>start</th><th>duration</th><th>activity</th><th>diagnosis</th><th>culprit</th><th>samples</th><th>thread</th></tr></thead>
            <tbody>
            \(rows.joined(separator: "\n"))
            </tbody>
            </table>
            \(more)
            </section>
            """
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
