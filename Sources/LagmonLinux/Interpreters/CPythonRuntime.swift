import CLagmonLinux
import Glibc
import LagmonCore
import LagmonSymbols

/// The CPython interpreter of one process: where `_PyRuntime` is and which layout its version
/// has. Found once per process from its memory map and the interpreter image's symbols, outside
/// any pause.
struct CPythonRuntime {
    /// `_PyRuntime`'s address in the process.
    var runtimeAddress: UInt64
    /// The offsets of this version.
    var layout: CPythonLayout

    /// The interpreter of process `pid` whose memory map is `map`; nil when no mapped image is a
    /// CPython (`libpython3.X.so…` or a `python3.X` executable) with `_PyRuntime` (3.6:
    /// `interp_head`), or its
    /// version is one lagmon has no layout for.
    static func find(pid: Int32, map: ProcessMemoryMap) -> CPythonRuntime? {
        var seen = Set<String>()
        for mapping in map.mappings {
            guard let path = mapping.filePath, !seen.contains(path), let minor = minorVersion(path) else { continue }
            seen.insert(path)
            guard let module = map.module(containing: mapping.start),
                let address = ELFDataSymbol.address(
                    of: CPythonLayout.runtimeSymbol(minor: minor), path: "/proc/\(pid)/root" + path,
                    loadBase: module.loadBase)
                    ?? ELFDataSymbol.address(
                        of: CPythonLayout.runtimeSymbol(minor: minor), path: path, loadBase: module.loadBase)
            else { continue }
            if let layout = minor >= 13 ? debugLayout(pid: pid, runtime: address) : CPythonLayout.table(minor: minor) {
                return CPythonRuntime(runtimeAddress: address, layout: layout)
            }
        }
        return nil
    }

    /// 3.X from an interpreter image's file name: `libpython3.11.so.1.0`, `python3.11`.
    static func minorVersion(_ path: String) -> Int? {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let stem =
            name.hasPrefix("libpython3.") ? name.dropFirst(11) : name.hasPrefix("python3.") ? name.dropFirst(8) : nil
        guard let stem else { return nil }
        let digits = stem.prefix { $0.isNumber }
        let rest = stem.dropFirst(digits.count)
        // `m` (pymalloc) and `d` (debug) tag 3.7 and earlier: `python3.7m`, `libpython3.6m.so.1.0`.
        let tagged = rest.first.map { "md".contains($0) } == true ? rest.dropFirst() : rest
        guard !digits.isEmpty, tagged.isEmpty || tagged.hasPrefix(".so") else { return nil }
        return Int(digits)
    }

    /// 3.13+: the layout `_PyRuntime.debug_offsets` publishes.
    private static func debugLayout(pid: Int32, runtime: UInt64) -> CPythonLayout? {
        var bytes = [UInt8](repeating: 0, count: CPythonLayout.debugOffsetsSize)
        let read = bytes.withUnsafeMutableBytes { lagmon_read_memory(pid, runtime, $0.baseAddress, $0.count) }
        guard read == bytes.count else { return nil }
        return CPythonLayout(debugOffsets: bytes)
    }
}
