/// GitHub Actions workflow commands for a gate: an `::error` per failed error-level check, a
/// `::warning` per failed warning-level one. GitHub reads them from the step's output and shows
/// them on the run and the pull request.
///
/// Escaping follows the runner's rules: in the message `%`, CR and LF become `%25`, `%0D` and
/// `%0A`; in property values (`title=`) also `:` and `,` become `%3A` and `%2C`.
public struct GitHubAnnotationWriter: GateWriter {
    public init() {}

    public func render(_ verdict: GateVerdict) throws -> [UInt8] {
        var lines: [String] = []
        for check in verdict.checks where check.failsGate || check.isWarning {
            let command = check.failsGate ? "error" : "warning"
            let title = Self.property("lagmon \(verdict.title): \(check.name)")
            let message = Self.data("\(check.message) in \(verdict.subject)")
            lines.append("::\(command) title=\(title)::\(message)\n")
        }
        return Array(lines.joined().utf8)
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
