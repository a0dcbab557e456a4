/// The lines under one stall, or one group of stalls, in the terminal summary: the diagnosis
/// and culprit (of the longest, when the stalls' diagnoses differ), then the group's most common
/// stack, innermost first, with the application's frames bold and the system's dim.
struct TerminalStallDetail {
    /// Frame lines shown per stack, at most.
    static let maxFrameLines = 5
    /// A run of more system frames than this shows its first and a count of the rest.
    static let maxSystemRun = 2

    var style: TerminalStyle
    /// How deep the lines are indented (below the stall's own line).
    var indent = "      "

    /// The diagnosis line, then the group's top stack.
    func lines(_ group: TerminalStallGroup) -> [String] {
        let worst = group.worst
        let alike = group.stalls.allSatisfy { $0.diagnosis == worst.diagnosis }
        let label = alike ? "" : "longest (#\(worst.id)): "
        var lines = [indent + label + diagnosisLine(worst)]
        if let kernel = worst.uninterruptible?.kernelStack, !kernel.isEmpty {
            let shown = kernel.prefix(Self.maxFrameLines).map(TerminalSummaryWriter.printable)
            lines.append(indent + style.dim("kernel stack, innermost first: " + shown.joined(separator: " ← ")))
        }
        guard let (top, samples) = group.topStack else { return lines }
        lines.append(indent + "top stack (\(top.count) of \(samples) samples), innermost first:")
        return lines + frameLines(top.frames.reversed()).map { indent + "  " + $0 }
    }

    private func diagnosisLine(_ stall: StallReport) -> String {
        let text = TerminalSummaryWriter.printable(stall.diagnosis.text)
        guard let culprit = stall.culprit else { return text }
        let name = TerminalSummaryWriter.printable(culprit.displayName)
        guard !text.contains(name) else { return text }
        let shown = FrameIdentity(culprit).isApplication ? style.bold(name) : name
        return "\(text) · culprit \(shown)"
    }

    /// `frames` innermost first, at most `maxFrameLines` of them, long system runs folded.
    private func frameLines(_ frames: [Frame]) -> [String] {
        var lines: [String] = []
        var shown = 0
        var index = 0
        while index < frames.count, shown < Self.maxFrameLines {
            let run = systemRunLength(frames, from: index)
            if run > Self.maxSystemRun {
                lines.append(frameLine(frames[index]))
                lines.append(style.dim("… \(run - 1) system frames"))
                index += run
            } else {
                lines.append(frameLine(frames[index]))
                index += 1
            }
            shown += 1
        }
        let rest = frames.count - index
        if rest > 0 { lines.append("… \(rest) more \(rest == 1 ? "frame" : "frames")") }
        return lines
    }

    /// Consecutive system frames starting at `start` (0 when it is an application frame).
    private func systemRunLength(_ frames: [Frame], from start: Int) -> Int {
        frames[start...].prefix { !FrameIdentity($0).isApplication }.count
    }

    /// `decodeImage(_:) (lagmon-demo, ImageDecoder.swift:42)`; the module is left out when it is
    /// already in the name (no symbol).
    func frameLine(_ frame: Frame) -> String {
        let name = TerminalSummaryWriter.printable(frame.displayName)
        if frame.runtime != nil {
            // Interpreted: the name already says file and line (`parse_feed (app.py:12)`).
            return FrameIdentity(frame).isApplication ? style.bold(name) : style.dim(name)
        }
        var place: [String] = frame.symbol == nil ? [] : [frame.module]
        if let file = frame.file {
            let base = file.split(separator: "/").last.map(String.init) ?? file
            place.append(frame.line.map { "\(base):\($0)" } ?? base)
        }
        var suffix = place.isEmpty ? "" : " (" + TerminalSummaryWriter.printable(place.joined(separator: ", ")) + ")"
        // A logical frame (it awaited the frame above), as Swift's own backtraces mark it.
        if frame.isAsyncCaller == true { suffix += " [async]" }
        return FrameIdentity(frame).isApplication ? style.bold(name) + suffix : style.dim(name + suffix)
    }
}
