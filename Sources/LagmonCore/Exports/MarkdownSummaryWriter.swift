/// The gate as Markdown for a CI job page (GitHub's step summary, `--summary-md` for others):
/// a heading with the verdict, the verdict line, and a table of every check.
public struct MarkdownSummaryWriter: GateWriter {
    public init() {}

    public func render(_ verdict: GateVerdict) throws -> [UInt8] {
        let mark = verdict.passed ? "✅" : "❌"
        let outcome = verdict.passed ? "PASS" : "FAIL"
        var text = "### \(mark) lagmon \(verdict.title): \(outcome) — \(Self.code(verdict.subject))\n\n"
        text += Self.escape(verdict.line) + "\n\n"
        if !verdict.checks.isEmpty {
            text += "| Result | Check | Measured | Limit | Level |\n| --- | --- | --- | --- | --- |\n"
            for check in verdict.checks {
                let cells = [
                    result(check), Self.code(check.name), Self.escape(check.measured), Self.escape(check.limit),
                    check.severity.rawValue,
                ]
                text += "| " + cells.joined(separator: " | ") + " |\n"
            }
            text += "\n"
        }
        return Array(text.utf8)
    }

    private func result(_ check: GateCheck) -> String {
        switch (check.passed, check.severity) {
        case (_, .info): "ℹ️ info"
        case (true, _): "✅ pass"
        case (false, .error): "❌ fail"
        case (false, .warning): "⚠️ warn"
        }
    }

    /// Plain text made inert: Markdown and HTML punctuation backslash-escaped (CommonMark's
    /// escapes, never HTML entities, which show literally where Markdown is not turned into HTML),
    /// line breaks as spaces, so a value cannot break the table or inject markup.
    static func escape(_ text: String) -> String {
        var result = ""
        for character in QuotedText.printable(text, limit: 400) {
            switch character {
            case "\\", "`", "*", "_", "[", "]", "|", "#", "~", "!", "<", ">", "&":
                result += "\\" + String(character)
            default: result.append(character)
            }
        }
        return result
    }

    /// A code span when the text allows one (no backtick), escaped text otherwise.
    static func code(_ text: String) -> String {
        let printable = QuotedText.printable(text, limit: 400)
        guard !printable.contains("`") else { return escape(printable) }
        return "`" + printable.replacingPipes() + "`"
    }
}

extension String {
    /// `|` escaped, which a GFM table needs even inside a code span.
    fileprivate func replacingPipes() -> String {
        var result = ""
        for character in self {
            if character == "|" { result += "\\|" } else { result.append(character) }
        }
        return result
    }
}
