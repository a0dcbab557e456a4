import Glibc

/// Turns on the perf map of runtimes lagmon starts and recognises, so their JIT frames get
/// names (`--no-jit-maps` turns this off): node (`--perf-basic-prof-only-functions
/// --interpreted-frames-native-stack` appended to `NODE_OPTIONS`). Removes, when the run ends,
/// the map files that this caused.
///
/// CPython ≥ 3.12's map (`PYTHONPERFSUPPORT=1`) is not turned on: lagmon reads Python frames
/// from the interpreter's memory (with lines), and the perf trampolines cut the native unwind
/// short at the first one (measured with 3.12 and 3.13: every native frame outside the innermost
/// interpreter entry was lost). A map the user turned on is still read (`py::` entries).
public enum JITMaps {
    /// The runtime `command` starts, if it is one whose perf map lagmon turns on.
    public enum Runtime: Equatable, Sendable {
        case node
    }

    /// The runtime of `program`: `node` or `nodejs`, by file name.
    public static func runtime(of program: String) -> Runtime? {
        let name = program.split(separator: "/").last.map(String.init) ?? program
        return name == "node" || name == "nodejs" ? .node : nil
    }

    /// Node's options: the map of compiled functions, and a copy of the interpreter's entry
    /// trampoline per interpreted function (without it, functions not yet optimised all run in
    /// one `Builtins_InterpreterEntryTrampoline` and the map names only their bytecode).
    static let nodeOptions = ["--perf-basic-prof-only-functions", "--interpreted-frames-native-stack"]

    /// Turns the map of `runtime` on in `environment`; false when the user already chose (a
    /// `NODE_OPTIONS` asking for a perf map), which stays. An existing `NODE_OPTIONS` gets the
    /// options appended.
    @discardableResult
    public static func enable(_ runtime: Runtime, in environment: inout [String: String]) -> Bool {
        let existing = environment["NODE_OPTIONS"] ?? ""
        guard !existing.contains("--perf-basic-prof") && !existing.contains("--perf-prof") else { return false }
        let added = nodeOptions.filter { !existing.contains($0) }
        environment["NODE_OPTIONS"] = ([existing].filter { !$0.isEmpty } + added).joined(separator: " ")
        return true
    }

    /// Removes the perf maps of `pids` (exited processes lagmon started or watched, with maps
    /// turned on by lagmon) that are regular files written at or after `sinceUnixSeconds`;
    /// symlinks and anything else are left alone. Returns the paths removed.
    @discardableResult
    public static func removeMaps(of pids: some Sequence<Int32>, createdSince sinceUnixSeconds: Int) -> [String] {
        var removed: [String] = []
        for pid in Set(pids) {
            let file = path(pid: pid)
            var status = stat()
            // Written since the run began (a map left by an earlier process with the same pid
            // is older), a regular file (never a symlink's target).
            guard lstat(file, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
                Int(status.st_ctim.tv_sec) >= sinceUnixSeconds, unlink(file) == 0
            else { continue }
            removed.append(file)
        }
        return removed.sorted()
    }

    /// The map of process `pid` in lagmon's own /tmp (the targets of `run` share it).
    static func path(pid: Int32) -> String { "/tmp/perf-\(pid).map" }
}
