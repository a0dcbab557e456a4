/// Merges a sample's interpreter frames into its symbolized native stack, as `py-spy --native`
/// does: each native interpreter entry (`_PyEval_EvalFrameDefault`) is replaced by the Python
/// frames that call of the interpreter runs, innermost first. Native frames around them stay
/// (the C function a Python line called, the C code that called back into Python).
///
/// Python frames left over when the native stack has no more entries (its unwind stopped early)
/// go at its outer end; entries left over when the Python frames ran out stay native.
public enum InterpreterStackMerger {
    /// Native functions that run interpreted frames.
    public static let entrySymbols: Set<String> = ["_PyEval_EvalFrameDefault", "PyEval_EvalFrameEx"]

    /// `native` (innermost first) with `interpreted` (innermost first) merged in.
    public static func merge(native: [Frame], interpreted: [InterpreterFrame]) -> [Frame] {
        guard !interpreted.isEmpty else { return native }
        var groups = entryGroups(interpreted)[...]
        var merged: [Frame] = []
        merged.reserveCapacity(native.count + interpreted.count)
        for frame in native {
            if let symbol = frame.symbol, entrySymbols.contains(symbol), let group = groups.popFirst() {
                merged += group
            } else {
                merged.append(frame)
            }
        }
        for group in groups { merged += group }
        return merged
    }

    /// The interpreted frames cut after each frame that ends its entry, as `Frame`s.
    static func entryGroups(_ interpreted: [InterpreterFrame]) -> [[Frame]] {
        var groups: [[Frame]] = []
        var current: [Frame] = []
        for frame in interpreted {
            current.append(.interpreted(.python, function: frame.function, file: frame.file, line: frame.line))
            if frame.endsEntry {
                groups.append(current)
                current = []
            }
        }
        if !current.isEmpty { groups.append(current) }
        return groups
    }
}
