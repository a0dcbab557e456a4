/// Text from users and targets made safe to quote in a one-line message.
public enum QuotedText {
    /// `text` with control, invisible format and unusual space characters escaped (`\n`,
    /// `\u{1B}`, `\u{202E}`, `\u{A0}`) and cut to `limit` characters with `…`, so a quoted value can neither end a line early,
    /// reorder it, nor flood it.
    public static func printable(_ text: String, limit: Int = 200) -> String {
        var result = ""
        var characters = 0
        for scalar in text.unicodeScalars {
            let category = scalar.properties.generalCategory
            let piece =
                category == .control || category == .format || category == .lineSeparator
                    || category == .paragraphSeparator || (category == .spaceSeparator && scalar != " ")
                ? scalar.escaped(asASCII: true) : String(scalar)
            if characters >= limit {
                result += "…"
                break
            }
            result += piece
            characters += 1
        }
        return result
    }
}
