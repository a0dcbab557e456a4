import Glibc

/// A failed system call: which operation, and errno.
public struct SystemError: Error, CustomStringConvertible, Equatable, Sendable {
    /// What lagmon was doing (`mmap`, `posix_spawn`, …).
    public var operation: String
    /// The errno value.
    public var code: Int32

    public init(_ operation: String, code: Int32 = errno) {
        self.operation = operation
        self.code = code
    }

    public var description: String {
        "\(operation) failed: \(String(cString: strerror(code)))"
    }
}

/// Runs `call` until it stops failing with EINTR; returns its result or throws `SystemError`.
@discardableResult
func retryingInterrupts<Result: BinaryInteger>(_ operation: String, _ call: () -> Result) throws -> Result {
    while true {
        let result = call()
        if result != -1 { return result }
        if errno != EINTR { throw SystemError(operation) }
    }
}
