import Glibc
import LagmonCore
import LagmonSymbols

/// Why `LD_PRELOAD` cannot enter a program, found before it starts: it is statically linked (no
/// dynamic loader runs it), or the loader runs it in secure mode (setuid or setgid to another
/// user or group), where it ignores `LD_PRELOAD`. (File capabilities also make the loader
/// secure; they are not looked for: the xattr API is not in Swift's Glibc module.) `lagmon run` then watches
/// the program's main thread from /proc instead.
public enum PreloadBarrier: Equatable, Sendable {
    /// No PT_INTERP program header: nothing loads a preloaded library.
    case staticallyLinked
    /// Set-user-ID to another user.
    case setuid
    /// Set-group-ID to another group.
    case setgid

    /// For the notice: `statically linked`, `setuid`, …
    public var description: String {
        switch self {
        case .staticallyLinked: "statically linked"
        case .setuid: "setuid"
        case .setgid: "setgid"
        }
    }

    /// What stops `LD_PRELOAD` from entering `command` (its program found as posix_spawnp would
    /// find it); nil when nothing does, or when the program is not found or not ELF (a script,
    /// whose interpreter is what runs) — then the launch itself says what is wrong.
    public static func detect(command: String, path: String?) -> PreloadBarrier? {
        guard let file = locate(command, path: path) else { return nil }
        var status = stat()
        guard stat(file, &status) == 0 else { return nil }
        if status.st_mode & S_ISUID != 0 && status.st_uid != getuid() { return .setuid }
        if status.st_mode & S_ISGID != 0 && status.st_gid != getgid() { return .setgid }
        guard let reader = ELFFileReader(path: file) else { return nil }
        return isStaticELF(reader) == true ? .staticallyLinked : nil
    }

    /// Whether the ELF image `reader` reads is an executable without a PT_INTERP program header;
    /// nil when it is not a 64-bit little-endian ELF executable (or its headers are cut short).
    static func isStaticELF(_ reader: ELFFileReader) -> Bool? {
        guard let header = reader.read(at: 0, count: 64), header.count == 64, header[0] == 0x7f,
            header[1] == UInt8(ascii: "E"), header[2] == UInt8(ascii: "L"), header[3] == UInt8(ascii: "F"),
            header[4] == 2, header[5] == 1, [2, 3].contains(header.elf16(16))
        else { return nil }
        let entrySize = Int(header.elf16(54))
        let count = Int(header.elf16(56))
        guard entrySize >= 56, count > 0, count < 4096,
            let table = reader.read(at: header.elf64(32), count: entrySize * count)
        else { return nil }
        let interpreter: UInt32 = 3  // PT_INTERP
        // A shared library has no PT_INTERP either, but is not run; ET_DYN with PT_INTERP is a PIE.
        return !(0..<count).contains { table.elf32($0 * entrySize) == interpreter }
    }

    /// The file posix_spawnp runs for `command`: the name itself when it contains a `/`,
    /// otherwise the first executable regular file of that name on `path` (default
    /// `/bin:/usr/bin`, as glibc's).
    static func locate(_ command: String, path: String?) -> String? {
        if command.contains("/") { return command }
        for directory in (path ?? "/bin:/usr/bin").split(separator: ":", omittingEmptySubsequences: false) {
            let candidate = (directory.isEmpty ? "." : String(directory)) + "/" + command
            var status = stat()
            if stat(candidate, &status) == 0, status.st_mode & S_IFMT == S_IFREG, access(candidate, X_OK) == 0 {
                return candidate
            }
        }
        return nil
    }
}
