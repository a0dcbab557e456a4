/// "Did you mean …?": the candidate closest to a mistyped word, by edit distance.
public enum Suggestion {
    /// The candidate within `maxDistance` edits of `word` (insertions, deletions, substitutions),
    /// the closest first, then the earliest; nil when none is that close.
    public static func closest(to word: String, in candidates: [String], maxDistance: Int = 2) -> String? {
        let scored = candidates.map { (candidate: $0, distance: editDistance(word, $0)) }
        guard let best = scored.min(by: { $0.distance < $1.distance }), best.distance <= maxDistance else { return nil }
        return best.candidate
    }

    /// The option closest to a mistyped one (`--jsn` → `--json`, `-threshold` → `--threshold`)
    /// among the words of `text` (a help message) that are options: `--` and a lowercase name
    /// (`--json`, `--no-color`), never punctuation that happens to follow dashes (`--.` ending a
    /// sentence). A single letter after one dash (`-x`) is close to every short option, so it gets
    /// no suggestion.
    public static func closestOption(to typed: String, inHelp text: String) -> String? {
        let name = String(typed.prefix { $0 != "=" })
        guard name.count > 2 else { return nil }
        let words = text.split(whereSeparator: { " \n,|[]()<>'\"".contains($0) })
        let options = Set(words.map(String.init).filter(isLongOption)).sorted()
        // `-threshold`: one dash where two belong.
        let spelled = name.hasPrefix("--") ? name : "-" + name
        return closest(to: spelled, in: options)
    }

    /// `--` and a name of lowercase letters, digits and inner dashes, ending in a letter or digit.
    public static func isLongOption(_ word: String) -> Bool {
        guard word.hasPrefix("--"), word.count > 3 else { return false }
        let name = word.dropFirst(2).prefix { $0 != "=" }
        let allowed = name.allSatisfy { ($0.isASCII && ($0.isLowercase || $0.isNumber)) || $0 == "-" }
        return allowed && name.first?.isLetter == true && name.last != "-"
    }

    /// Levenshtein distance between `a` and `b`, over characters.
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let left = Array(a)
        let right = Array(b)
        var previous = Array(0...right.count)
        for (i, l) in left.enumerated() {
            var current = [i + 1]
            for (j, r) in right.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (l == r ? 0 : 1)))
            }
            previous = current
        }
        return previous[right.count]
    }
}
