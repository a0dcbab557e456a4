/// A demangled Swift name under edit: the bracket-aware text operations `SwiftNameSimplifier`
/// is made of. Nesting counts `()`, `[]`, `{}` and generic `<>`; a `<` is a bracket only after
/// an identifier, a space or another `>` (`Array<Int>`, `specialization <…>`, `<A><B>`), never
/// in an operator (`Int.< infix`, `..<`), and the `>` of `->` never closes one.
struct DemangledText {
    private(set) var characters: [Character]

    init(_ text: String) { characters = Array(text) }

    private init(_ characters: ArraySlice<Character>) { self.characters = Array(characters) }

    var string: String { String(characters) }

    func hasPrefix(_ prefix: String) -> Bool { characters.starts(with: prefix) }

    /// Whether the text is one bare identifier (a module name, as in `… in lagmon_demo`).
    var isIdentifier: Bool { !characters.isEmpty && characters.allSatisfy(Self.isIdentifier) }

    /// Whether the text names a local context: `closure #1 …`, `fail #1 (…)`, `NullDevice #1`.
    var isLocalContext: Bool { topLevelIndex(of: " #") != nil || hasPrefix("closure #") }

    /// Whether `separator` occurs outside any brackets.
    func containsTopLevel(_ separator: String) -> Bool { topLevelIndex(of: separator) != nil }

    // MARK: Whole-name edits

    /// `X with unmangled suffix ".resume.0"` → `X`.
    mutating func removeUnmangledSuffix() {
        if let index = topLevelIndex(of: " with unmangled suffix ") { characters.removeSubrange(index...) }
    }

    /// `(extension in M):T` → `T`, `(name in _0123ABCD)` → `name`: contexts a reader does not need.
    mutating func removeContextDecorations() {
        var index = 0
        while index < characters.count {
            if characters[index] == "(",
                let close = characters[(index + 1)...].firstIndex(where: { $0 == ")" || $0 == "(" }),
                characters[close] == ")"
            {
                let inner = String(characters[(index + 1)..<close])
                if inner.hasPrefix("extension in "), close + 1 < characters.count, characters[close + 1] == ":" {
                    characters.removeSubrange(index...(close + 1))
                    continue
                }
                if let name = privateName(inner) {
                    // `T.(in _X).init`: a private member without a name of its own loses its dot too.
                    let hasDot = name.isEmpty && close + 1 < characters.count && characters[close + 1] == "."
                    characters.replaceSubrange(index...(hasDot ? close + 1 : close), with: name)
                    continue
                }
            }
            index += 1
        }
    }

    /// The top-level pieces between occurrences of `separator` (`closure #1 in f()` → two).
    func splitTopLevel(on separator: String) -> [DemangledText] {
        var pieces: [DemangledText] = []
        var start = 0
        for index in topLevelIndices(of: separator) where index >= start {
            pieces.append(DemangledText(characters[start..<index]))
            start = index + separator.count
        }
        pieces.append(DemangledText(characters[start...]))
        return pieces
    }

    // MARK: Edits of one link of the `in` chain

    /// Drops `merged`, specializations and async resume partials, which may be stacked. Returns
    /// what must stay in front of the rest: `partial apply for ` for `partial apply forwarder for `.
    mutating func removeLeadingPhrases() -> String {
        var kept = ""
        while true {
            if hasPrefix("merged ") {
                characters.removeFirst(7)
            } else if hasPrefix("partial apply forwarder for ") {
                characters.removeFirst(28)
                kept += "partial apply for "
            } else if let length = resumePartialPrefixLength() ?? specializationPrefixLength() {
                characters.removeFirst(length)
            } else {
                return kept
            }
        }
    }

    /// `closure #1 (Int) -> ()` → `closure #1`; false when there is no top-level `closure #n`.
    mutating func cutAfterClosureNumber() -> Bool {
        guard let index = topLevelIndex(of: "closure #") else { return false }
        var end = index + 9
        while end < characters.count, characters[end].isASCII, characters[end].isNumber { end += 1 }
        characters.removeSubrange(end...)
        return true
    }

    /// Cuts at the first top-level occurrence of any of `separators`.
    mutating func cutAtTopLevel(_ separators: String...) {
        let first = separators.compactMap { topLevelIndex(of: $0) }.min()
        if let first { characters.removeSubrange(first...) }
    }

    /// `f(x: Int) async throws(E)` → `f(x: Int)`.
    mutating func removeTrailingEffects() {
        let words = [" throws", " rethrows", " async", " reasync"]
        while true {
            if characters.last == ")", let open = openingIndex(ofCloserAt: characters.count - 1),
                characters[..<open].reversed().starts(with: " throws".reversed())
            {
                characters.removeSubrange((open - 7)...)
            } else if let word = words.first(where: { characters.reversed().starts(with: $0.reversed()) }) {
                characters.removeLast(word.count)
            } else {
                return
            }
        }
    }

    /// `f(_: Data, row: Int)` → `f(_:row:)`; `f()` stays, and so does a tuple that follows no
    /// name (`outlined copy of (Int, Int)`).
    mutating func reduceParametersToLabels() {
        guard characters.last == ")", let open = openingIndex(ofCloserAt: characters.count - 1),
            followsName(open)
        else { return }
        let inner = DemangledText(characters[(open + 1)..<(characters.count - 1)])
        guard !inner.characters.allSatisfy({ $0 == " " }) else { return }
        let labels = inner.splitTopLevel(on: ", ").map { $0.argumentLabel() + ":" }
        characters.replaceSubrange((open + 1)..<(characters.count - 1), with: labels.joined())
    }

    /// `f<A where A: P>` → `f<A>`.
    mutating func removeWhereClauses() {
        while let start = firstIndex(of: " where ") {
            let depths = self.depths()
            guard let close = characters.indices.first(where: { $0 > start && depths[$0 + 1] < depths[start] })
            else { return }
            characters.removeSubrange(start..<close)
        }
    }

    /// `Swift.Array.append` → `Array.append`: the first component of every qualified name is
    /// its module in a full demangling. Generic parameters (`A.Element`) are not modules.
    mutating func removeModulePrefixes() {
        var index = 0
        while index < characters.count {
            guard Self.isIdentifier(characters[index]), index == 0 || !Self.continuesName(characters[index - 1])
            else {
                index += 1
                continue
            }
            var end = index
            while end < characters.count, Self.isIdentifier(characters[end]) { end += 1 }
            let isQualified = end + 1 < characters.count && characters[end] == "." && characters[end + 1] != "."
            if isQualified, !Self.isGenericParameter(characters[index..<end]) {
                characters.removeSubrange(index...end)
            }
            // The rest of the chain (`Array.Index`) is the name itself.
            while index < characters.count, Self.continuesName(characters[index]) { index += 1 }
        }
    }

    /// `reabstraction thunk helper <A> from X to Y` → `thunk for X`.
    mutating func rewriteThunk() {
        guard hasPrefix("reabstraction thunk"), let from = topLevelIndex(of: " from ") else { return }
        characters.replaceSubrange(0..<(from + 6), with: "thunk for ")
        cutAtTopLevel(" to ")
    }

    // MARK: Pieces

    /// Whether the `(` at `open` follows a function's name: an identifier, generic parameters
    /// (`f<A>(`), an operator's `infix`, or a local function's number (`fail #1 (`).
    private func followsName(_ open: Int) -> Bool {
        guard open > 0 else { return false }
        let before = characters[open - 1]
        if Self.isIdentifier(before) || before == ">" { return true }
        guard before == " " else { return false }
        let word = characters[..<(open - 1)].reversed().prefix { $0 != " " }
        return word.last == "#" && word.count > 1 && word.dropLast().allSatisfy(\.isNumber)
    }

    /// `row: Int` → `row`; `_: Data` → `_`; an unlabelled `Int` → `_`.
    private func argumentLabel() -> String {
        let text = characters.drop(while: { $0 == " " })
        guard let colon = text.firstIndex(of: ":"), colon + 1 < characters.count, characters[colon + 1] == " ",
            text[..<colon].allSatisfy(Self.isIdentifier), colon > text.startIndex
        else { return "_" }
        return String(text[..<colon])
    }

    /// `name in _0123ABCD` → `name`, `in _0123ABCD` → empty; nil for anything else.
    private func privateName(_ inner: String) -> String? {
        let words = inner.split(separator: " ")
        guard words.count >= 2, words.count <= 3, words[words.count - 2] == "in", let discriminator = words.last,
            discriminator.hasPrefix("_"), discriminator.count > 1, discriminator.dropFirst().allSatisfy(\.isHexDigit)
        else { return nil }
        return words.count == 3 ? String(words[0]) : ""
    }

    /// `(2) await resume partial function for `, with or without the number.
    private func resumePartialPrefixLength() -> Int? {
        var start = 0
        if characters.first == "(", let close = characters.firstIndex(of: ")"),
            characters[1..<close].allSatisfy({ $0.isNumber }), close + 1 < characters.count
        {
            start = close + 2
        }
        for phrase in ["suspend resume partial function for ", "await resume partial function for "]
        where characters[start...].starts(with: phrase) {
            return start + phrase.count
        }
        return nil
    }

    /// `generic specialization <…> of `, `function signature specialization <…> of `, ….
    private func specializationPrefixLength() -> Int? {
        guard let marker = firstIndex(of: "specialization <"),
            characters[..<marker].allSatisfy({ $0.isLetter || $0 == " " || $0 == "-" })
        else { return nil }
        let open = marker + 15
        guard let close = closingIndex(ofOpenerAt: open), characters[(close + 1)...].starts(with: " of ") else {
            return nil
        }
        return close + 5
    }

    // MARK: Nesting

    /// The nesting depth before each character, plus one entry for the end.
    private func depths() -> [Int] {
        var result = [0]
        var open: [Character] = []
        for index in characters.indices {
            let character = characters[index]
            switch character {
            case "(", "[", "{": open.append(character)
            case "<" where opensAngle(at: index): open.append(character)
            case ")": Self.close("(", in: &open)
            case "]": Self.close("[", in: &open)
            case "}": Self.close("{", in: &open)
            case ">" where index == 0 || characters[index - 1] != "-": Self.close("<", in: &open)
            default: break
            }
            result.append(open.count)
        }
        return result
    }

    /// Closes the innermost `opener` and whatever is still open inside it: the demangler does not
    /// always balance its brackets (`[Closure Propagated : …, Argument Types : [T]>`). A closer
    /// with no opener is text (an operator).
    private static func close(_ opener: Character, in open: inout [Character]) {
        guard let index = open.lastIndex(of: opener) else { return }
        open.removeSubrange(index...)
    }

    /// Whether the `<` at `index` opens generic arguments (`Array<`, `specialization <`, `<A><B`)
    /// rather than being part of an operator.
    private func opensAngle(at index: Int) -> Bool {
        index > 0
            && (Self.isIdentifier(characters[index - 1]) || characters[index - 1] == " "
                || characters[index - 1] == ">")
    }

    private func closingIndex(ofOpenerAt open: Int) -> Int? {
        let depths = self.depths()
        return characters.indices.first { $0 > open && depths[$0 + 1] == depths[open] }
    }

    private func openingIndex(ofCloserAt close: Int) -> Int? {
        let depths = self.depths()
        return characters.indices.last { $0 < close && depths[$0] == depths[close + 1] && depths[$0 + 1] > depths[$0] }
    }

    private func firstIndex(of text: String) -> Int? {
        let pattern = Array(text)
        guard characters.count >= pattern.count else { return nil }
        return (0...(characters.count - pattern.count)).first { characters[$0...].starts(with: pattern) }
    }

    private func topLevelIndex(of text: String) -> Int? { topLevelIndices(of: text).first }

    private func topLevelIndices(of text: String) -> [Int] {
        let pattern = Array(text)
        guard characters.count >= pattern.count else { return [] }
        let depths = self.depths()
        return (0...(characters.count - pattern.count)).filter {
            depths[$0] == 0 && characters[$0...].starts(with: pattern)
        }
    }

    private static func isIdentifier(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character == "_" || character == "$" || !character.isASCII
    }

    /// Whether `character` continues a name (so an identifier after it is not a new one).
    private static func continuesName(_ character: Character) -> Bool {
        isIdentifier(character) || character == "." || character == "#"
    }

    /// `A`, `B1`, `τ_0_0`: generic parameter names, which qualify associated types, not modules.
    private static func isGenericParameter(_ name: ArraySlice<Character>) -> Bool {
        guard let first = name.first else { return false }
        return (first.isUppercase && first.isASCII && name.dropFirst().allSatisfy { $0.isNumber }) || first == "τ"
    }
}
