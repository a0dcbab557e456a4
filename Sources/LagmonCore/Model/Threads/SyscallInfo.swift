/// The system call a thread is blocked in (from /proc/<pid>/task/<tid>/syscall).
public struct SyscallInfo: Sendable, Equatable, Codable {
    /// The x86_64 system call number.
    public var number: Int
    /// Its name (`read`, `futex`, …), or `syscall_<n>` when unknown.
    public var name: String
    /// The six argument registers.
    public var arguments: [UInt64]
    /// What the first argument designates when it is a file descriptor: `pipe:[1234]`,
    /// `socket:[5678]`, a path. Nil when the call takes no descriptor or it vanished.
    public var descriptorTarget: String?

    public init(number: Int, name: String, arguments: [UInt64], descriptorTarget: String? = nil) {
        self.number = number
        self.name = name
        self.arguments = arguments
        self.descriptorTarget = descriptorTarget
    }
}
