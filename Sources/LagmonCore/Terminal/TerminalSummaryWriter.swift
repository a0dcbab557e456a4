/// The human summary lagmon prints on stderr at exit. Every line starts with `lagmon:` so it
/// never blends into the target's own output.
public struct TerminalSummaryWriter: ReportWriter {
    /// Colours, or none.
    public var style: TerminalStyle
    /// At most this many groups of stalls (stalls in the same code) are listed.
    public var stallLines: Int

    public init(style: TerminalStyle, stallLines: Int = 10) {
        self.style = style
        self.stallLines = stallLines
    }

    public func render(_ report: Report) throws -> [UInt8] {
        Array(lines(report).map { "lagmon: \($0)\n" }.joined().utf8)
    }

    /// The summary, line by line, without the prefix.
    public func lines(_ report: Report) -> [String] {
        var lines = [headline(report)]
        for group in LoopGroup.groups(report.loops) {
            guard group.loops.count == 1, let loop = group.loops.first else {
                lines.append(group.summary)
                continue
            }
            lines += loopLines(loop, targetPid: report.target.pid)
        }
        lines += stallLines(report)
        lines += TerminalBlockingCalls(style: style).lines(report)
        lines += samplingLines(report.sampling)
        lines += threadLines(report.threads)
        for diagnostic in report.diagnostics {
            let label = diagnostic.severity == .info ? style.dim("note:") : style.yellow("warning:")
            lines.append("\(label) \(diagnostic.message)")
        }
        return lines
    }

    private func headline(_ report: Report) -> String {
        let command = Self.printable(
            report.target.command.first.map { $0.split(separator: "/").last.map(String.init) ?? $0 } ?? "target")
        let wall = DurationText.format(nanoseconds: report.target.wallNs)
        if report.target.attached == true {
            let ending = report.target.exited == true ? "until it exited" : "still running"
            return style.bold("\(command) (pid \(report.target.pid)) attached for \(wall), \(ending)")
        }
        let ending =
            report.target.signalName.map { "was killed by \($0)" }
            ?? "exited with status \(report.target.exitStatus.map(String.init) ?? "unknown")"
        return style.bold("\(command) (pid \(report.target.pid)) \(ending) after \(wall)")
    }

    private func loopLines(_ loop: LoopReport, targetPid: Int32) -> [String] {
        let busy = DurationText.fixed(loop.busyRatio * 100, digits: 1)
        let latency = loop.latency
        let format = DurationText.format(nanoseconds:)
        return [
            "\(loop.observer) loop on thread \(loop.thread.tid) \"\(Self.printable(loop.thread.name))\"\(loop.pid == targetPid ? "" : " of pid \(loop.pid)"): \(loop.iterations) iterations, busy \(busy)% of \(format(loop.observedNs))",
            "  busy periods: \(latency.count) · p50 \(format(latency.p50Ns)) · p90 \(format(latency.p90Ns)) · p99 \(format(latency.p99Ns)) · max \(format(latency.maxNs))",
        ]
    }

    private func stallLines(_ report: Report) -> [String] {
        let summary = report.summary
        let threshold = DurationText.format(nanoseconds: report.config.thresholdNs)
        guard summary.stallCount > 0 else {
            return report.loops.isEmpty ? [] : [style.green("no stalls over \(threshold)")]
        }
        let groups = TerminalStallGroup.groups(report.stalls)
        let noun = summary.stallCount == 1 ? "stall" : "stalls"
        let head = style.red("\(summary.stallCount) \(noun) over \(threshold)")
        let total = "total \(DurationText.format(nanoseconds: summary.totalStallNs))"
        // One group holding every stall: its line is the headline.
        let single = groups.count == 1 && groups[0].stalls.count > 1 && groups[0].stalls.count == summary.stallCount
        var lines = [
            single
                ? "\(head) \(groupText(groups[0], in: report)), \(total)"
                : "\(head): longest \(DurationText.format(nanoseconds: summary.longestStallNs)), \(total)"
        ]
        // Without any stack sample (sampling off or impossible), "no stack samples" under every
        // stall would be noise: a diagnostic already says why.
        // A thread that could not be stopped (state D) has no stack sample, yet a diagnosis.
        let sampled = report.stalls.contains { $0.samples > 0 || $0.diagnosis.kind != .unknown }
        let detail = TerminalStallDetail(style: style)
        for group in groups.prefix(stallLines) {
            if !single { lines.append("  " + groupLine(group, in: report)) }
            if sampled { lines += detail.lines(group) }
        }
        let rest = groups.dropFirst(stallLines).reduce(0) { $0 + $1.stalls.count }
        if rest > 0 { lines.append("  … and \(rest) more \(rest == 1 ? "stall" : "stalls") (see --json)") }
        return lines
    }

    /// `#1 +0.400s 210ms in afterWaiting` for one stall; for several, their ids, where and their
    /// durations: `3 stalls #1, #3, #4 busy in a callback on thread …: 64ms, 75ms, 320ms`.
    private func groupLine(_ group: TerminalStallGroup, in report: Report) -> String {
        guard group.stalls.count > 1 else {
            let stall = group.stalls[0]
            let offset = "+" + DurationText.fixed(Double(stall.startNs) / 1e9, digits: 3) + "s"
            let duration = DurationText.format(nanoseconds: stall.durationNs)
            let ongoing = stall.ongoingAtExit ? style.yellow(" (still stalled at exit)") : ""
            let words = StallActivityText.text(stall, in: report)
            return
                "#\(stall.id) \(offset) \(style.bold(duration)) \(words)\(Self.place(of: stall, in: report))\(ongoing)"
        }
        return "\(group.stalls.count) stalls " + groupText(group, in: report)
    }

    /// `(#1–#6) in afterWaiting, all in the same code: min 205ms · median 246ms · max 405ms`.
    private func groupText(_ group: TerminalStallGroup, in report: Report) -> String {
        let words = Set(group.stalls.map { StallActivityText.text($0, in: report) }).sorted().joined(separator: " or ")
        let places = Set(group.stalls.map { Self.place(of: $0, in: report) })
        let place = places.count == 1 ? places.first ?? "" : " on \(places.count) threads"
        let ongoing = group.stalls.filter(\.ongoingAtExit).count
        let still = ongoing == 0 ? "" : style.yellow(" (\(ongoing) still stalled at exit)")
        let code = group.sharesCode ? ", all in the same code" : ""
        return "(\(group.ids)) \(words)\(place)\(code)\(still): \(style.bold(group.durations))"
    }

    /// Where a stall happened, when the report has more than one loop: its thread, and its
    /// process when that is not the target.
    static func place(of stall: StallReport, in report: Report) -> String {
        guard report.loops.count > 1 || stall.pid.map({ $0 != report.target.pid }) == true else { return "" }
        let process = stall.pid.flatMap { $0 == report.target.pid ? nil : " of pid \($0)" } ?? ""
        return " on thread \(stall.thread.tid) \"\(printable(stall.thread.name))\"\(process)"
    }

    /// Sampling's own cost, when stacks were sampled.
    private func samplingLines(_ sampling: SamplingReport) -> [String] {
        guard sampling.samples > 0 else { return [] }
        let format = DurationText.format(nanoseconds:)
        let complete = DurationText.fixed(sampling.completeness * 100, digits: 1)
        var line =
            "stack samples: \(sampling.samples) · pause p50 \(format(sampling.pauseNsP50)) · p99 \(format(sampling.pauseNsP99)) · max \(format(sampling.pauseNsMax)) · \(complete)% complete"
        if sampling.unwindErrors > 0 {
            line += sampling.unwindErrors == 1 ? " · 1 unwind error" : " · \(sampling.unwindErrors) unwind errors"
        }
        return [line]
    }

    /// The three threads with the highest average CPU use; a target with one thread, on one line.
    private func threadLines(_ threads: [ThreadReport]) -> [String] {
        guard !threads.isEmpty else { return [] }
        let busiest = threads.sorted { ($1.cpu.avgPct, $0.tid) < ($0.cpu.avgPct, $1.tid) }.prefix(3)
        let head = "busiest threads (\(busiest.count) of \(threads.count)):"
        guard threads.count > 1 else { return busiest.map { "busiest thread (1 of 1): " + threadLine($0) } }
        return [head] + busiest.map { "  " + threadLine($0) }
    }

    /// `thread 5001 "lagmon-demo": avg 32.6% · max 88.0% of a core · 1 alert`.
    private func threadLine(_ thread: ThreadReport) -> String {
        let avg = DurationText.fixed(thread.cpu.avgPct, digits: 1)
        let max = DurationText.fixed(thread.cpu.maxPct, digits: 1)
        let alerts = thread.alerts.count == 1 ? "1 alert" : "\(thread.alerts.count) alerts"
        return "thread \(thread.tid) \"\(Self.printable(thread.name))\": avg \(avg)% · max \(max)% of a core · "
            + (thread.alerts.isEmpty ? alerts : style.yellow(alerts))
    }

    /// `text` with control characters escaped (`\n`, `\u{1B}`); symbols, paths and thread names
    /// come from the target and must not end a line early or inject escape sequences.
    static func printable(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            if scalar.properties.generalCategory == .control {
                result += scalar.escaped(asASCII: false)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
