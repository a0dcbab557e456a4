import CLagmonLinux
import Glibc

/// Opens a path below a root directory the way openat2's `RESOLVE_IN_ROOT` does, for kernels
/// without openat2 (before 5.6): one component at a time, none followed by the kernel
/// (`O_NOFOLLOW`); a symlink's text is read and resolved by lagmon, an absolute one from the
/// root, and `..` never climbs above the root. So a container's symlink cannot lead to a host
/// file. Bounded: at most `maxSymlinks` symlinks and `maxComponents` components per path.
enum TargetPathWalk {
    static let maxSymlinks = 40
    static let maxComponents = 4096

    /// A descriptor of `path` below `root` opened with `flags` (`O_NOFOLLOW` in them refuses a
    /// symlink as the last component), or -errno.
    static func open(_ path: String, below root: Int32, flags: Int32) -> Int32 {
        var pending = components(path)
        // Directories entered below the root, innermost last (owned; the root is not).
        var entered: [Int32] = []
        defer { entered.forEach { close($0) } }
        var symlinks = 0
        var steps = 0
        while !pending.isEmpty {
            steps += 1
            guard steps <= maxComponents else { return -ENAMETOOLONG }
            let name = pending.removeFirst()
            if name == "." { continue }
            if name == ".." {
                if let last = entered.popLast() { close(last) }
                continue
            }
            let parent = entered.last ?? root
            let step = openat(parent, name, lagmon_o_path() | O_NOFOLLOW | O_CLOEXEC)
            guard step >= 0 else { return -errno }
            var status = stat()
            guard fstat(step, &status) == 0 else {
                close(step)
                return -EIO
            }
            let isLast = pending.isEmpty
            switch status.st_mode & S_IFMT {
            case S_IFLNK:
                defer { close(step) }
                symlinks += 1
                guard !(isLast && flags & O_NOFOLLOW != 0), symlinks <= maxSymlinks, let target = linkText(step)
                else { return -ELOOP }
                if target.hasPrefix("/") {
                    entered.forEach { close($0) }
                    entered = []
                }
                pending = components(target) + pending
            case S_IFDIR where !isLast:
                entered.append(step)
            default:
                defer { close(step) }
                guard isLast else { return -ENOTDIR }
                // Reopened for reading by name, then checked to be the file the walk found.
                let file = openat(parent, name, flags | O_NOFOLLOW | O_CLOEXEC)
                guard file >= 0 else { return -errno }
                var opened = stat()
                guard fstat(file, &opened) == 0, opened.st_ino == status.st_ino, opened.st_dev == status.st_dev else {
                    close(file)
                    return -EAGAIN
                }
                return file
            }
        }
        return -EISDIR
    }

    /// The non-empty components of `path`.
    static func components(_ path: String) -> [String] {
        path.split(separator: "/").map(String.init)
    }

    /// The text of the symlink `descriptor` (an O_PATH descriptor of it), at most PATH_MAX bytes.
    private static func linkText(_ descriptor: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlinkat(descriptor, "", &buffer, buffer.count - 1)
        guard count > 0, count < buffer.count - 1 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
