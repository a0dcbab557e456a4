/// A target's command line for one-line display: the program's file name and its arguments,
/// escaped, cut to a readable length.
enum TargetCommand {
    static func display(_ command: [String]) -> String {
        guard let program = command.first else { return "target" }
        let name = program.split(separator: "/").last.map(String.init) ?? program
        let words = [name] + command.dropFirst().map { $0.contains(" ") || $0.isEmpty ? "'\($0)'" : $0 }
        return QuotedText.printable(words.joined(separator: " "), limit: 120)
    }
}
