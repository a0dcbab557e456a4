import Glibc

/// Writes files so readers see either the old content or the complete new one: a temporary
/// file in the same directory, fsync, rename.
public enum AtomicFile {
    /// Replaces the file at `path` with `bytes`; the new file gets `mode` (by default 0666 less
    /// the umask, as a file created with `>` would).
    public static func write(_ bytes: [UInt8], to path: String, mode: UInt32? = nil) throws {
        let directory = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        var template = Array("\(directory.isEmpty ? "/" : directory)/.lagmon-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw SystemError("create a temporary file in \(directory)") }
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        do {
            try writeAll(bytes, to: fd)
            try retryingInterrupts("fsync") { fsync(fd) }
            fchmod(fd, mode_t(mode ?? (0o666 & ~OutputDestination.currentUmask())))
            close(fd)
            try retryingInterrupts("rename to \(path)") { rename(temporary, path) }
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
    }

    /// Appends `bytes` to the file at `path` (created if missing) with one `O_APPEND` write loop
    /// and an fsync: for files other processes append to as well (`$GITHUB_STEP_SUMMARY`), which
    /// replacing by rename would race with.
    public static func append(_ bytes: [UInt8], to path: String) throws {
        let fd = try retryingInterrupts("open \(path)") { open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644) }
        defer { close(fd) }
        try writeAll(bytes, to: fd)
        try retryingInterrupts("fsync") { fsync(fd) }
    }

    /// Writes `bytes` to a character device or FIFO at `path`, in place (opened, written, closed;
    /// never truncated or replaced).
    public static func writeInPlace(_ bytes: [UInt8], to path: String) throws {
        let fd = try retryingInterrupts("open \(path)") { open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC) }
        defer { close(fd) }
        try writeAll(bytes, to: fd)
    }

    /// Writes `bytes` to an open descriptor (stdout, stderr), all of them.
    public static func writeAll(_ bytes: [UInt8], to fd: Int32) throws {
        var offset = 0
        while offset < bytes.count {
            let written = try bytes[offset...].withUnsafeBytes { buffer in
                try retryingInterrupts("write") { Glibc.write(fd, buffer.baseAddress, buffer.count) }
            }
            offset += written
        }
    }
}
