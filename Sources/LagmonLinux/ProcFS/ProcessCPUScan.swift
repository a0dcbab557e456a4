import Glibc
import LagmonCore

/// Reads every process's CPU time so far (`/proc/<pid>/stat`), for naming what took the CPU
/// from a stalled loop. At most `limit` processes; one read of each, none blocking (procfs).
enum ProcessCPUScan {
    /// Processes read per scan, at most.
    static let limit = 4096

    static func scan() -> [Int32: ProcessTicks] {
        guard let directory = opendir("/proc") else { return [:] }
        defer { closedir(directory) }
        var processes: [Int32: ProcessTicks] = [:]
        var seen = 0
        while seen < limit, let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let pid = Int32(name), pid > 0 else { continue }
            seen += 1
            guard let stat = ProcFS.readFile("/proc/\(pid)/stat").flatMap(ProcTaskStat.parse) else { continue }
            processes[pid] = ProcessTicks(name: stat.comm, ticks: stat.cpuTicks)
        }
        return processes
    }
}
