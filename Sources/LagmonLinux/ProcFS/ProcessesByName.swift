import Glibc
import LagmonCore

/// The live processes called a name (`ProcessNameMatch`), for `lagmon attach --name`: one pass
/// over /proc, reading each process's `stat` (its name and state) and, only for a name longer
/// than the kernel keeps, the `cmdline` of those whose name could be it.
public enum ProcessesByName {
    /// The most /proc entries looked at in one pass (pid_max is at most 4,194,304; a machine
    /// with more processes than this has the others ignored, not a pass that never ends).
    public static let maxEntries = 262_144

    /// The pids of the processes called `name`, ascending: lagmon itself, zombies and kernel
    /// threads (whose command line is empty) left out.
    public static func pids(named name: String) -> [Int32] {
        guard let directory = opendir("/proc") else { return [] }
        defer { closedir(directory) }
        var matching: [Int32] = []
        var seen = 0
        let own = getpid()
        while seen < maxEntries, let entry = readdir(directory) {
            seen += 1
            let text = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let pid = Int32(text), pid > 0, pid != own, isCalled(name, pid: pid) else { continue }
            matching.append(pid)
        }
        return matching.sorted()
    }

    private static func isCalled(_ name: String, pid: Int32) -> Bool {
        guard let stat = ProcFS.readFile("/proc/\(pid)/stat").flatMap(ProcTaskStat.parse),
            stat.state != .zombie, stat.state != .dead,
            stat.comm == name || ProcessNameMatch.needsArgumentZero(name: name, comm: stat.comm)
        else { return false }
        let arguments = ProcFS.readFile("/proc/\(pid)/cmdline").map(ProcProcessText.commandLine) ?? []
        guard let first = arguments.first else { return false }
        return ProcessNameMatch.matches(name: name, comm: stat.comm, argumentZero: first)
    }
}
