import Glibc

/// `lagmon attach --pid-file PATH`: the pid a service manager or daemon wrote. The file is read
/// only if it is a regular file of at most 64 bytes; it must hold one decimal pid (surrounding
/// whitespace allowed) of a process that exists.
public enum PidFile {
    /// The largest pid file read.
    public static let maxBytes = 64

    /// The pid in the file at `path`.
    public static func read(_ path: String) throws(AttachFailure) -> Int32 {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw .badPidFile(path: path, problem: "cannot read it (\(String(cString: strerror(errno))))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .badPidFile(path: path, problem: "not a regular file") }
        guard info.st_size <= maxBytes else {
            throw .badPidFile(path: path, problem: "\(info.st_size) bytes, longer than a pid file (\(maxBytes))")
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else {
            throw .badPidFile(path: path, problem: "cannot open it (\(String(cString: strerror(errno))))")
        }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: maxBytes + 1)
        let count = Glibc.read(descriptor, &bytes, bytes.count)
        guard count >= 0, count <= maxBytes else { throw .badPidFile(path: path, problem: "cannot read it") }
        return try parse(Array(bytes[..<count]), path: path)
    }

    /// The pid in `bytes`, checked to name a live process.
    static func parse(_ bytes: [UInt8], path: String) throws(AttachFailure) -> Int32 {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x0A || $0 == 0x09 || $0 == 0x0D }
        let digits = bytes.drop(while: isSpace).reversed().drop(while: isSpace).reversed()
        guard !digits.isEmpty, digits.count <= 10, digits.allSatisfy({ (0x30...0x39).contains($0) }),
            let pid = Int32(String(decoding: digits, as: UTF8.self)), pid > 0
        else {
            throw .badPidFile(path: path, problem: "it does not hold a decimal pid")
        }
        guard kill(pid, 0) == 0 || errno == EPERM else {
            throw .badPidFile(path: path, problem: "no process with pid \(pid) (a stale pid file?)")
        }
        return pid
    }
}
