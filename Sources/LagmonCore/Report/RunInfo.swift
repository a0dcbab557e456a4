/// Which run wrote a report, for dashboards that collect reports from many machines and jobs.
public struct RunInfo: Codable, Sendable, Equatable {
    /// A random id (a UUID, lower case) made once per run: two reports with the same `id` are
    /// the same run.
    public var id: String
    /// The name of the machine lagmon ran on (`gethostname`).
    public var host: String

    public init(id: String, host: String) {
        self.id = id
        self.host = host
    }
}
