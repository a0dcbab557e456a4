/// GitHub Actions workflow commands for a gate: an `::error` per failed error-level check, a
/// `::warning` per failed warning-level one. GitHub reads them from the step's output and shows
/// them on the run and the pull request. A check whose culprit's source file lies in the
/// repository (`GateVerdict.locating(in:)`) is annotated at that file and line (`file=`,
/// `line=`), so it shows on the pull request's diff; its message says the culprit, the worst
/// stalls with their top frames, and the files to open.
///
/// Escaping follows the runner's rules: in the message `%`, CR and LF become `%25`, `%0D` and
/// `%0A`; in property values (`file=`, `title=`) also `:` and `,` become `%3A` and `%2C`.
public struct GitHubAnnotationWriter: GateWriter {
    public init() {}

    public func render(_ verdict: GateVerdict) throws -> [UInt8] {
        var lines: [String] = []
        for check in verdict.checks where check.failsGate || check.isWarning {
            let command = check.failsGate ? "error" : "warning"
            var properties: [String] = []
            if let culprit = check.evidence?.primary, let path = culprit.sourcePath {
                properties.append("file=" + Self.property(path))
                if let line = culprit.line { properties.append("line=\(line)") }
            }
            properties.append("title=" + Self.property("lagmon \(verdict.title): \(check.name)"))
            let message = Self.data(Self.message(check, verdict: verdict))
            lines.append("::\(command) \(properties.joined(separator: ","))::\(message)\n")
        }
        return Array(lines.joined().utf8)
    }

    /// The first line says what failed, in what, and where its culprit is; the next ones the
    /// evidence and the files to open.
    private static func message(_ check: GateCheck, verdict: GateVerdict) -> String {
        var lines = ["\(check.messageWithCulprit) in \(verdict.subject)"]
        if let evidence = check.evidence {
            lines += evidence.lines
            if !verdict.openPaths.isEmpty { lines.append("open: " + verdict.openPaths.joined(separator: ", ")) }
        }
        return lines.joined(separator: "\n")
    }

    /// A command's message.
    public static func data(_ text: String) -> String {
        var result = ""
        for character in text.unicodeScalars {
            switch character {
            case "%": result += "%25"
            case "\r": result += "%0D"
            case "\n": result += "%0A"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }

    /// A command's property value.
    public static func property(_ text: String) -> String {
        var result = ""
        for character in data(text).unicodeScalars {
            switch character {
            case ":": result += "%3A"
            case ",": result += "%2C"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }
}
