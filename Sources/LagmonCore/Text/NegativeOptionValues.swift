/// Command-line words with a negative value given to an option as the next word
/// (`--kill-after -1s`), which the argument parser reads as an option of its own and reports as
/// a missing value.
public enum NegativeOptionValues {
    /// `arguments` with each `--option -VALUE` pair before `--` joined into `--option=-VALUE`,
    /// where VALUE starts with a digit or a dot; nil when there is none. Only for a second
    /// parse after the first failed: its error then names the value.
    public static func joined(_ arguments: [String]) -> [String]? {
        var result: [String] = []
        var changed = false
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            if word == "--" {
                result += arguments[index...]
                break
            }
            if index + 1 < arguments.count, word.hasPrefix("--"), word.count > 2, !word.contains("="),
                isNegativeNumber(arguments[index + 1])
            {
                result.append(word + "=" + arguments[index + 1])
                changed = true
                index += 2
                continue
            }
            result.append(word)
            index += 1
        }
        return changed ? result : nil
    }

    private static func isNegativeNumber(_ word: String) -> Bool {
        guard word.hasPrefix("-"), let second = word.dropFirst().first else { return false }
        return second == "." || (second.isASCII && second.isNumber)
    }
}
