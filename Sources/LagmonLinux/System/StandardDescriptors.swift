import Glibc
import Synchronization

/// Descriptors 0, 1 and 2 as lagmon was started with them.
///
/// A descriptor closed at start would be handed to the next file lagmon opens (the channel's
/// memfd would become stdout, and the target would write its output into the channel). So
/// `reserve()`, the first thing lagmon does, puts /dev/null on each closed one, and remembers it:
/// the target is started with the same one closed again, exactly the stdio lagmon got.
public enum StandardDescriptors {
    private static let closed = Mutex<[Int32]>([])

    /// Opens /dev/null onto each of 0–2 that is closed; returns false when that failed (then
    /// nothing else may be opened safely).
    @discardableResult
    public static func reserve() -> Bool {
        var reserved: [Int32] = []
        for fd: Int32 in 0...2 where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
            // The lowest free number is `fd` itself: every lower one is open (or was just opened).
            let opened = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY)
            guard opened == fd else {
                if opened >= 0 { close(opened) }
                return false
            }
            reserved.append(fd)
        }
        closed.withLock { $0 = reserved }
        return true
    }

    /// The standard descriptors that were closed when lagmon started (and hold /dev/null now).
    public static var closedAtStart: [Int32] { closed.withLock { $0 } }
}
