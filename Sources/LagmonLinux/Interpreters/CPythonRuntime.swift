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

    /// The interpreter of the process whose memory map is `map` and whose files `files` opens;
    /// nil when no mapped image is a CPython (`libpythonX.Y.so…` or a `pythonX.Y` executable)
    /// with `_PyRuntime` (2.7 and 3.6: `interp_head`), or its version is one lagmon has no layout
    /// for. `note` is told of an interpreter image that could not be read (in a container: a
    /// path its root does not resolve to the mapped file).
    static func find(files: TargetFileSystem, map: ProcessMemoryMap, note: (TargetFileProblem) -> Void)
        -> CPythonRuntime?
    {
        var seen = Set<String>()
        for mapping in map.mappings {
            // A file another process or a network serves is never opened here (it may never answer).
            guard let path = mapping.filePath, !seen.contains(path),
                !FileSystemServers.serveRemotely(device: mapping.device, pid: files.pid), let version = version(path),
                let module = map.module(containing: mapping.start)
            else { continue }
            seen.insert(path)
            let reader: ELFFileReader
            switch files.open(mapping) {
            case .success(let file):
                guard let opened = file.reader() else { continue }
                reader = opened
            case .failure(let problem):
                note(problem)
                continue
            }
            guard
                let address = ELFDataSymbol.address(
                    of: CPythonLayout.runtimeSymbol(version: version), reader: reader, loadBase: module.loadBase)
            else { continue }
            if let layout = version >= 313
                ? debugLayout(pid: files.pid ?? getpid(), runtime: address) : CPythonLayout.table(version: version)
            {
                return CPythonRuntime(runtimeAddress: address, layout: layout)
            }
        }
        return nil
    }

    /// Major × 100 + minor from an interpreter image's file name: 311 from
    /// `libpython3.11.so.1.0` or `python3.11`, 207 from `python2.7`.
    static func version(_ path: String) -> Int? {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let major = name.hasPrefix("libpython3.") || name.hasPrefix("python3.") ? 3 : 2
        let prefix = major == 3 ? "python3." : "python2."
        let stem =
            name.hasPrefix("lib" + prefix)
            ? name.dropFirst(prefix.count + 3) : name.hasPrefix(prefix) ? name.dropFirst(prefix.count) : nil
        guard let stem else { return nil }
        let digits = stem.prefix { $0.isNumber }
        let rest = stem.dropFirst(digits.count)
        // `m` (pymalloc) and `d` (debug) tag 3.7 and earlier: `python3.7m`, `libpython3.6m.so.1.0`.
        let tagged = rest.first.map { "md".contains($0) } == true ? rest.dropFirst() : rest
        guard !digits.isEmpty, tagged.isEmpty || tagged.hasPrefix(".so"), let minor = Int(digits) else { return nil }
        return major * 100 + minor
    }

    /// 3.13+: the layout `_PyRuntime.debug_offsets` publishes.
    private static func debugLayout(pid: Int32, runtime: UInt64) -> CPythonLayout? {
        var bytes = [UInt8](repeating: 0, count: CPythonLayout.debugOffsetsSize)
        let read = bytes.withUnsafeMutableBytes { lagmon_read_memory(pid, runtime, $0.baseAddress, $0.count) }
        guard read == bytes.count else { return nil }
        return CPythonLayout(debugOffsets: bytes)
    }
}
