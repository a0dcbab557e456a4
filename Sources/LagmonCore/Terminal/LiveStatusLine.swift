/// The one line the live view redraws on a terminal while the target runs:
/// `lagmon: 12.3s · 4 stalls · worst 260ms · loop stalled 1.20s in afterWaiting · main CPU 98%`.
/// Pure: the command line decides when and where it is drawn.
public struct LiveStatusLine: Sendable {
    /// Colours, or none.
    public var style: TerminalStyle

    public init(style: TerminalStyle) {
        self.style = style
    }

    /// The line for `progress`, cut to `width` visible characters (at least the prefix).
    public func render(_ progress: SessionProgress, width: Int) -> String {
        var parts = [DurationText.fixed(Double(progress.elapsedNs) / 1e9, digits: 1) + "s"]
        let noun = progress.stallCount == 1 ? "stall" : "stalls"
        parts.append(progress.stallCount == 0 ? "no stalls" : "\(progress.stallCount) \(noun)")
        if progress.worstStallNs > 0 {
            parts.append("worst \(DurationText.format(nanoseconds: progress.worstStallNs))")
        }
        parts.append(loopText(progress.loop))
        if let pct = progress.mainThreadCPUPct { parts.append("main CPU \(DurationText.fixed(pct, digits: 0))%") }
        var visible = "lagmon: " + parts.joined(separator: " · ")
        if visible.count > width { visible = String(visible.prefix(max(width - 1, 8))) + "…" }
        guard case .stalled = progress.loop, style.colors else { return visible }
        // Colour the whole line while a stall lasts (after cutting, so the width holds).
        return style.red(visible)
    }

    private func loopText(_ state: SessionProgress.LoopState) -> String {
        switch state {
        case .notObserved: "no loop observed yet"
        case .idle: "loop idle"
        case .busy(let activity): "loop busy in \(activity.name)"
        case .stalled(let activity, let forNs):
            "loop STALLED \(DurationText.format(nanoseconds: forNs)) in \(activity.name)"
        }
    }
}
