import Glibc

/// The probe at a path the dynamic loader of any target image can load: the library's own path
/// when that works, else a private copy that does.
///
/// ld.so opens each `LD_PRELOAD` entry with the credentials of the image being started, and the
/// target may change user before it execs again (`setpriv --reuid`, a daemon dropping root); it
/// splits `LD_PRELOAD` at spaces and colons with no escape; it maps the file executable. So the
/// path must be absolute, free of spaces and colons, readable by every user through directories
/// every user may search, on a filesystem mounted without `noexec`. (A `/proc/<lagmon>/fd/<n>`
/// alias fails the first rule: another user may not open lagmon's descriptors.) The copy goes into
/// a new directory mkdtemp makes under the first of $TMPDIR, /tmp, /var/tmp, /dev/shm that fits,
/// so nothing in it can have been planted (the file is created O_EXCL|O_NOFOLLOW); the directory
/// is then opened to others (0755, file 0644) and removed by `remove()` when the session ends.
public final class LoadablePreload {
    /// The path to put in `LD_PRELOAD`.
    public let path: String
    /// The private copy's directory, or nil when `path` is the library itself.
    public let copyDirectory: String?

    /// Checks `library` and copies it when it cannot be loaded in place; throws when no copy can
    /// be made.
    public init(library: String, environment: [String: String]) throws {
        if let absolute = Self.resolved(library), Self.loadableByAnyone(absolute) {
            path = absolute
            copyDirectory = nil
            return
        }
        let directories = [environment["TMPDIR"] ?? "", "/tmp", "/var/tmp", "/dev/shm"]
        guard let parent = directories.first(where: { !$0.isEmpty && Self.loadableByAnyone($0, directory: true) })
        else {
            throw SystemError(
                "find a directory every user can load the probe from (TMPDIR, /tmp, /var/tmp, /dev/shm)", code: ENOENT)
        }
        let directory = try Self.makePrivateDirectory(in: parent)
        do {
            path = try Self.copy(library, into: directory)
        } catch {
            rmdir(directory)
            throw error
        }
        copyDirectory = directory
    }

    /// Removes the private copy (nothing when the library is used in place).
    public func remove() {
        guard let copyDirectory else { return }
        unlink(path)
        rmdir(copyDirectory)
    }

    /// Whether every user's loader can open `path` as given: absolute, no space or colon, a world
    /// readable file (a directory: world searchable) below directories anyone may search, not on a
    /// noexec mount.
    static func loadableByAnyone(_ path: String, directory: Bool = false) -> Bool {
        guard path.hasPrefix("/"), !path.utf8.contains(where: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: ":") }),
            let resolved = resolved(path)
        else { return false }
        var info = stat()
        guard stat(resolved, &info) == 0 else { return false }
        let kind = info.st_mode & S_IFMT
        let permitted =
            directory ? kind == S_IFDIR && info.st_mode & S_IXOTH != 0 : kind == S_IFREG && info.st_mode & S_IROTH != 0
        guard permitted, searchableByAnyone(ancestorsOf: resolved) else { return false }
        var filesystem = statvfs()
        return statvfs(resolved, &filesystem) == 0 && filesystem.f_flag & noexecFlag == 0
    }

    /// statvfs's ST_NOEXEC, which glibc's header declares only under _GNU_SOURCE.
    private static let noexecFlag: UInt = 8

    /// Whether every directory above `path` (links resolved) may be searched by any user.
    private static func searchableByAnyone(ancestorsOf path: String) -> Bool {
        var prefix = ""
        for component in path.split(separator: "/").dropLast() {
            prefix += "/" + component
            var info = stat()
            guard stat(prefix, &info) == 0, info.st_mode & S_IXOTH != 0 else { return false }
        }
        return true
    }

    /// `path` with links, `.` and `..` resolved (realpath), or nil when it does not exist.
    private static func resolved(_ path: String) -> String? {
        guard let pointer = realpath(path, nil) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    private static func makePrivateDirectory(in parent: String) throws -> String {
        var template = Array((parent + "/lagmon-preload-\(getuid())-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw SystemError("mkdtemp in \(parent)") }
        let directory = String(cString: made)
        guard chmod(directory, 0o755) == 0 else {
            let error = SystemError("chmod \(directory)")
            rmdir(directory)
            throw error
        }
        return directory
    }

    /// Copies `library` to `directory/libLagmonPreload.so` (0644), returning the copy's path.
    private static func copy(_ library: String, into directory: String) throws -> String {
        let destination = directory + "/" + PreloadLibrary.fileName
        let source = try retryingInterrupts("open \(library)") { open(library, O_RDONLY | O_CLOEXEC) }
        defer { close(source) }
        let target = try retryingInterrupts("create \(destination)") {
            open(destination, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        }
        defer { close(target) }
        do {
            try copyBytes(from: source, to: target, named: destination)
            guard fchmod(target, 0o644) == 0 else { throw SystemError("chmod \(destination)") }
        } catch {
            unlink(destination)
            throw error
        }
        return destination
    }

    private static func copyBytes(from source: Int32, to target: Int32, named destination: String) throws {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = try buffer.withUnsafeMutableBytes { bytes in
                try retryingInterrupts("read the probe") { read(source, bytes.baseAddress, bytes.count) }
            }
            if count == 0 { return }
            var written = 0
            while written < count {
                written += try buffer[written..<count].withUnsafeBytes { bytes in
                    try retryingInterrupts("write \(destination)") { write(target, bytes.baseAddress, bytes.count) }
                }
            }
        }
    }
}
