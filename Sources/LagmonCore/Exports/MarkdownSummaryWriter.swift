/// The gate as Markdown for a CI job page (GitHub's step summary, `--summary-md` for others):
/// a heading with the verdict, the verdict line, a table of every check with its culprit, then
/// per failed (or new) check the worst stalls behind it — diagnosis, culprit, file:line, top
/// frames — and the files to open.
public struct MarkdownSummaryWriter: GateWriter {
    public init() {}

    public func render(_ verdict: GateVerdict) throws -> [UInt8] {
        let mark = verdict.passed ? "✅" : "❌"
        let outcome = verdict.passed ? "PASS" : "FAIL"
        var text = "### \(mark) lagmon \(verdict.title): \(outcome) — \(Self.code(verdict.subject))\n\n"
        text += Self.escape(verdict.line) + "\n\n"
        if !verdict.checks.isEmpty {
            text += "| Result | Check | Measured | Limit | Level | Culprit |\n| --- | --- | --- | --- | --- | --- |\n"
            for check in verdict.checks {
                let cells = [
                    result(check), Self.code(check.name), Self.escape(check.measured), Self.escape(check.limit),
                    check.severity.rawValue, check.evidence?.primary.map(Self.place) ?? "",
                ]
                text += "| " + cells.joined(separator: " | ") + " |\n"
            }
            text += "\n"
        }
        text += evidence(verdict)
        return Array(text.utf8)
    }

    /// A section per check with evidence, in the table's order; a check whose evidence an
    /// earlier one showed points there instead of repeating it.
    private func evidence(_ verdict: GateVerdict) -> String {
        var text = ""
        var shown: [(evidence: GateEvidence, check: String)] = []
        for check in verdict.checks {
            guard let evidence = check.evidence, !evidence.culprits.isEmpty || !check.passed else { continue }
            text += "#### \(Self.code(check.name))\n\n"
            if let earlier = shown.first(where: { $0.evidence == evidence }) {
                text += "The same as \(Self.code(earlier.check)).\n\n"
                continue
            }
            shown.append((evidence, check.name))
            text += Self.escape(evidence.summary) + "\n\n"
            for culprit in evidence.culprits { text += Self.item(culprit) }
            text += evidence.culprits.isEmpty ? "" : "\n"
        }
        if !text.isEmpty && !verdict.openPaths.isEmpty {
            text += "Open " + verdict.openPaths.map(Self.code).joined(separator: ", ") + " for the whole run.\n\n"
        }
        return text
    }

    /// `- **stall #4 (260ms)**: waiting on a lock … — `value(for:)` at `ImageList.swift:19``,
    /// then its top frames on a line of their own.
    private static func item(_ culprit: GateCulprit) -> String {
        var text = "- **\(escape(culprit.subject))**: \(escape(culprit.diagnosis))"
        if culprit.function != nil || culprit.location != nil { text += " — " + place(culprit) }
        if !culprit.frames.isEmpty {
            // Two trailing spaces: a hard line break inside the list item.
            text += "  \n  " + culprit.frames.map(code).joined(separator: " ← ")
        }
        return text + "\n"
    }

    /// `` `value(for:)` at `Sources/App/ImageList.swift:19` ``, or whichever half is known.
    static func place(_ culprit: GateCulprit) -> String {
        [culprit.function.map(code), culprit.location.map(code)].compactMap { $0 }
            .joined(separator: culprit.lineIsCaller ? " called at " : " at ")
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
