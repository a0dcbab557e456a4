/// "Did you mean …?": the candidate closest to a mistyped word, by edit distance.
public enum Suggestion {
    /// The candidate within `maxDistance` edits of `word` (insertions, deletions, substitutions),
    /// the closest first, then the earliest; nil when none is that close.
    public static func closest(to word: String, in candidates: [String], maxDistance: Int = 2) -> String? {
        let scored = candidates.map { (candidate: $0, distance: editDistance(word, $0)) }
        guard let best = scored.min(by: { $0.distance < $1.distance }), best.distance <= maxDistance else { return nil }
        return best.candidate
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
