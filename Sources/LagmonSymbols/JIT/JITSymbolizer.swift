import LagmonCore

/// Names the frames of a symbolized stack that ran JIT code, from the process's perf map: only
/// frames in no mapped file (anonymous executable memory, or memory mapped after the map was
/// read) are looked up, so a hostile map cannot rename the program's own functions.
public enum JITSymbolizer {
    /// `frames` (innermost first, as the symbolizer made them) with every frame the perf map
    /// names replaced by its JIT frame. With `interpreterFrames` (CPython's frames were read
    /// from memory, the better source), Python's perf trampolines are left out instead: they
    /// would repeat the Python frames merged in at each interpreter entry.
    public static func resolve(_ frames: [Frame], index: PerfMapIndex, interpreterFrames: Bool) -> [Frame] {
        guard !index.isEmpty else { return frames }
        var resolved: [Frame] = []
        resolved.reserveCapacity(frames.count)
        for (position, frame) in frames.enumerated() {
            guard isUnmapped(frame) else {
                resolved.append(frame)
                continue
            }
            // A return address points after its call: look up the call itself.
            let address = position == 0 ? frame.address : frame.address &- 1
            guard let name = index.name(at: address) else {
                resolved.append(frame)
                continue
            }
            if interpreterFrames && JITFrameName.isPythonTrampoline(name) { continue }
            resolved.append(JITFrameName.frame(name, address: frame.address))
        }
        return resolved
    }

    /// Whether the symbolizer found no file at the frame's address.
    static func isUnmapped(_ frame: Frame) -> Bool {
        frame.symbol == nil && frame.runtime == nil && frame.address != 0
            && (frame.module == Frame.unknownModule || frame.module.isEmpty
                || (frame.module.hasPrefix("[") && frame.module != "[vdso]"))
    }
}
