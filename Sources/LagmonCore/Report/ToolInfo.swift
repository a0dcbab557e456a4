/// Name and version of the program that wrote a report.
public struct ToolInfo: Codable, Sendable, Equatable {
    /// Always `lagmon`.
    public var name: String
    /// lagmon's version.
    public var version: String

    public init(name: String = "lagmon", version: String) {
        self.name = name
        self.version = version
    }
}
