import Glibc

/// Why a socket operation failed, as text for a message.
struct SocketFailure: Error {
    var reason: String
    init(_ reason: String) { self.reason = reason }
    /// The text of `errno` now.
    static var errnoText: SocketFailure { SocketFailure(String(cString: strerror(errno))) }
}
