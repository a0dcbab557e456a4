/// A GitHub Actions workflow command read as the runner reads it: `::command k=v,k=v::message`,
/// with the runner's escapes undone (message: `%25` `%0D` `%0A`; properties also `%3A` `%2C`).
struct GitHubCommand: Equatable, CustomStringConvertible {
    var command: String
    var properties: [String: String]
    var message: String

    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    var description: String { "::\(command) \(properties)::\(message)" }

    /// Every workflow command line of `output` (other lines are the program's own).
    static func parse(_ output: String) throws -> [GitHubCommand] {
        try output.split(separator: "\n").filter { $0.hasPrefix("::") }.map { try parse(line: String($0)) }
    }

    static func parse(line: String) throws -> GitHubCommand {
        let body = line.dropFirst(2)
        guard let end = body.range(of: "::") else { throw Malformed(description: "no closing :: in \(line)") }
        let head = body[..<end.lowerBound]
        let message = String(body[end.upperBound...])
        let command = String(head.prefix { $0 != " " })
        var properties: [String: String] = [:]
        let rest = head.dropFirst(command.count).drop { $0 == " " }
        for pair in rest.split(separator: ",", omittingEmptySubsequences: true) {
            guard let equals = pair.firstIndex(of: "=") else { throw Malformed(description: "property \(pair)") }
            let key = String(pair[..<equals])
            guard properties[key] == nil else { throw Malformed(description: "repeated \(key) in \(line)") }
            properties[key] = unescape(String(pair[pair.index(after: equals)...]), property: true)
        }
        // A raw CR or LF cannot be in one line; a raw % must have been escaped.
        guard !message.contains("\r"), !message.contains("\n") else { throw Malformed(description: line) }
        return GitHubCommand(command: command, properties: properties, message: unescape(message, property: false))
    }

    private static func unescape(_ text: String, property: Bool) -> String {
        var codes = ["%0D": "\r", "%0A": "\n"]
        if property { codes["%3A"] = ":"; codes["%2C"] = "," }
        var result = text
        for (code, character) in codes { result = result.replacingOccurrences(of: code, with: character) }
        return result.replacingOccurrences(of: "%25", with: "%")
    }
}
