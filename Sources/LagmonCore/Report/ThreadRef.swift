/// A thread, as reports name it.
public struct ThreadRef: Codable, Sendable, Equatable, Hashable {
    /// Kernel thread id.
    public var tid: Int32
    /// Thread name (comm), at most 15 bytes.
    public var name: String

    public init(tid: Int32, name: String) {
        self.tid = tid
        self.name = name
    }
}
