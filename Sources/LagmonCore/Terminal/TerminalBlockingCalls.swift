/// The summary's StrictMode section: the blocking calls loop threads made, most time first, one
/// line per call and call site.
struct TerminalBlockingCalls {
    /// Colours, or none.
    var style: TerminalStyle
    /// At most this many calls are listed.
    var limit = 10

    /// The section's lines; none when StrictMode was off or no loop made a blocking call.
    func lines(_ report: Report) -> [String] {
        guard let calls = report.blockingCalls, !report.loops.isEmpty else { return [] }
        let unrecorded = report.blockingCallsUnrecorded ?? 0
        let count = calls.reduce(unrecorded) { saturatingAdd($0, $1.count) }
        guard count > 0 else { return [] }
        let total = calls.reduce(0) { saturatingAdd($0, $1.totalNs) }
        let noun = count == 1 ? "blocking call" : "blocking calls"
        var lines = [
            style.yellow("\(count) \(noun) on loop threads")
                + " (StrictMode): \(DurationText.format(nanoseconds: total)) in all"
        ]
        for call in calls.prefix(limit) { lines.append("  " + line(call, report: report)) }
        if calls.count > limit { lines.append("  … and \(calls.count - limit) more (see --json)") }
        if unrecorded > 0 {
            lines.append("  \(unrecorded) more from call sites beyond what the probe's table holds")
        }
        return lines
    }

    /// `read ×3 (file) 1.2ms, max 610µs at load_config (app.c:42) · main`
    private func line(_ call: BlockingCallReport, report: Report) -> String {
        let format = DurationText.format(nanoseconds:)
        let site = TerminalSummaryWriter.printable(call.site.displayName)
        let place = call.site.file.map { file in
            " (\(TerminalSummaryWriter.printable(file.split(separator: "/").last.map(String.init) ?? file))"
                + (call.site.line.map { ":\($0)" } ?? "") + ")"
        }
        var text =
            "\(style.bold(call.call)) ×\(call.count) (\(call.category)) \(format(call.totalNs)), max \(format(call.maxNs)) at \(site)\(place ?? "")"
        if report.loops.count > 1 || call.pid != report.target.pid {
            let process = call.pid == report.target.pid ? "" : " of pid \(call.pid)"
            text += " · thread \(call.thread.tid) \"\(TerminalSummaryWriter.printable(call.thread.name))\"\(process)"
        }
        return text
    }
}
