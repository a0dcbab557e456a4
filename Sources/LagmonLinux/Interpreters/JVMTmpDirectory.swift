import Glibc

/// A process's `/tmp`, as the process sees it (`/proc/<pid>/root/tmp`), opened without following
/// a symlink; every name in it is looked at and made through the descriptor, never followed.
struct JVMTmpDirectory {
    /// The descriptor of the directory.
    let descriptor: Int32
    /// The path lagmon reached it by, for messages.
    let path: String

    /// Process `pid`'s /tmp; nil when it cannot be opened (the process is gone).
    init?(pid: Int32) {
        path = "/proc/\(pid)/root/tmp"
        descriptor = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
    }

    func close() { _ = Glibc.close(descriptor) }

    /// The status of `name` itself (a symlink is a symlink); nil when absent.
    private func status(_ name: String) -> stat? {
        var status = stat()
        return fstatat(descriptor, name, &status, AT_SYMLINK_NOFOLLOW) == 0 ? status : nil
    }

    func exists(_ name: String) -> Bool { status(name) != nil }

    func isRegularFile(_ name: String) -> Bool { status(name).map { $0.st_mode & S_IFMT == S_IFREG } ?? false }

    /// Whether `name` is a socket (not a symlink to one) owned by `uid` (any owner when nil).
    func isSocket(_ name: String, ownedBy uid: uid_t?) -> Bool {
        guard let status = status(name) else { return false }
        return status.st_mode & S_IFMT == S_IFSOCK && (uid.map { status.st_uid == $0 } ?? true)
    }

    /// Creates the empty file `name` (only when absent); whether it did.
    func createEmpty(_ name: String) -> Bool {
        let file = openat(descriptor, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard file >= 0 else { return false }
        _ = Glibc.close(file)
        return true
    }

    /// Removes `name` (never what a symlink points to); whether it did.
    @discardableResult
    func remove(_ name: String) -> Bool { unlinkat(descriptor, name, 0) == 0 }
}
