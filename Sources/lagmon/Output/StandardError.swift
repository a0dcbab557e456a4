import Glibc
import LagmonLinux

/// lagmon's own lines on stderr: `lagmon: …`.
enum StandardError {
    /// Writes `lagmon: <line>` and a newline, all of it; a closed or broken stderr is ignored.
    static func say(_ line: String) {
        try? AtomicFile.writeAll(Array("lagmon: \(line)\n".utf8), to: STDERR_FILENO)
    }
}
