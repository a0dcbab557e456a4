/// Shortens a full Swift demangling to the name a stack frame shows:
///
///     static lagmon_demo.ImageDecoder.decodeImage(_: Foundation.Data, row: Swift.Int) -> lagmon_demo.Thumbnail
///     static ImageDecoder.decodeImage(_:row:)
///
/// Module prefixes, parameter and result types, effects, `where` clauses and private
/// discriminators go; argument labels, generic parameters and the `closure #1 in …` chain stay.
/// Specializations (`generic specialization <…> of X`), `merged`, async resume partials and
/// unmangled suffixes reduce to what they specialize. Close to `swift demangle --simplified`,
/// which the runtime's `swift_demangle` cannot produce.
///
/// Works on the text only, so it never fails: what it does not recognise is left as written.
public enum SwiftNameSimplifier {
    /// The short form of `demangled` (the output of `swift_demangle`).
    public static func simplify(_ demangled: String) -> String {
        var text = DemangledText(demangled)
        text.removeUnmangledSuffix()
        text.removeContextDecorations()
        var parts = text.splitTopLevel(on: " in ")
        dropConformanceModule(&parts)
        return parts.indices.map { index in
            let isQualified = index + 1 == parts.count || !parts[index + 1].isLocalContext
            return simplifyPart(parts[index], isQualified: isQualified)
        }.joined(separator: " in ")
    }

    /// Whether `demangled` names a part of an async function: a resume partial function, or a
    /// function (or closure) whose own effects include `async`.
    public static func isAsync(_ demangled: String) -> Bool {
        var text = DemangledText(demangled)
        text.removeUnmangledSuffix()
        guard var first = text.splitTopLevel(on: " in ").first else { return false }
        if first.string.contains("resume partial function for ") { return true }
        _ = first.removeLeadingPhrases()
        return first.containsTopLevel(" async")
    }

    /// `… conformance T : P in M`: the conformance's protocol and module say little in a frame
    /// (swift's simplified form drops them too). Only a conformance ends in a bare module after
    /// a top-level ` : `.
    private static func dropConformanceModule(_ parts: inout [DemangledText]) {
        guard parts.count >= 2, let module = parts.last, module.isIdentifier,
            parts[parts.count - 2].containsTopLevel(" : ")
        else { return }
        parts.removeLast()
        parts[parts.count - 1].cutAtTopLevel(" : ")
    }

    /// One link of the `in` chain: `closure #1 (Int) -> ()`, `static M.T.f(a: Int) -> Int`, …
    /// `isQualified` is false for a name relative to a local context (`x.getter in Local #1`),
    /// which has no module prefix.
    private static func simplifyPart(_ part: DemangledText, isQualified: Bool) -> String {
        var part = part
        let kept = part.removeLeadingPhrases()
        if part.hasPrefix("reabstraction thunk") || part.hasPrefix("thunk for ") {
            part.rewriteThunk()
        } else if part.cutAfterClosureNumber() {
            // `closure #1 (Int) -> ()`: the closure's type is noise, it has no labels.
        } else {
            part.cutAtTopLevel(" : ", " -> ")
            part.removeTrailingEffects()
            part.reduceParametersToLabels()
            part.removeWhereClauses()
        }
        if isQualified { part.removeModulePrefixes() }
        return kept + part.string
    }
}
