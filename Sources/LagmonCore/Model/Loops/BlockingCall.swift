/// A libc call StrictMode counts when a loop's thread makes it: it blocks, and does not belong
/// on an event loop's thread (file I/O, DNS, a blocking connect, a sleep, waiting for a child,
/// a shell). The raw values are the channel's `lagmon_strict_call` codes.
public enum BlockingCall: UInt32, CaseIterable, Codable, Sendable {
    case read = 1
    case pread
    case write
    case pwrite
    case fsync
    case fdatasync
    case open
    case openat
    case getaddrinfo
    case connect
    case sleep
    case usleep
    case nanosleep
    case clockNanosleep
    case waitpid
    case wait4
    case system
    case popen
    case readv
    case writev
    case preadv
    case pwritev

    /// The libc function, as reports name it (`clock_nanosleep`).
    public var name: String {
        self == .clockNanosleep ? "clock_nanosleep" : String(describing: self)
    }

    /// What kind of waiting it is: `file`, `dns`, `connect`, `sleep` or `process`.
    public var category: String {
        switch self {
        case .read, .pread, .write, .pwrite, .fsync, .fdatasync, .open, .openat, .readv, .writev, .preadv, .pwritev:
            "file"
        case .getaddrinfo: "dns"
        case .connect: "connect"
        case .sleep, .usleep, .nanosleep, .clockNanosleep: "sleep"
        case .waitpid, .wait4, .system, .popen: "process"
        }
    }
}
