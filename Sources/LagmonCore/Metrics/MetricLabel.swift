/// One `--label KEY=VALUE`: a label on every series of the session's metrics (scraped or
/// pushed) and a part of the Pushgateway grouping key; `instance` names the pushed group only.
public struct MetricLabel: Sendable, Equatable {
    public var key: String
    public var value: String

    public init(key: String, value: String) {
        self.key = key
        self.value = value
    }

    /// Keys the grouping key or Prometheus sets itself, or that lagmon's metrics use.
    public static let reserved: Set<String> = [
        "job", "process", "loop", "diagnosis", "thread", "culprit", "call", "le", "quantile",
    ]

    /// The key that names the pushed group's `instance` (the host name unless given): a scraped
    /// target's `instance` is Prometheus's, so it is never a label of the exposition.
    public static let instanceKey = "instance"

    /// Parses `KEY=VALUE`: KEY a Prometheus label name (`[a-zA-Z_][a-zA-Z0-9_]*`, not `__…`, not
    /// reserved), VALUE not empty.
    public static func parse(_ text: String) -> Result<MetricLabel, PushGatewayError> {
        guard let equals = text.firstIndex(of: "=") else {
            return .failure(.badLabel(text, "give KEY=VALUE, e.g. --label commit=$GITHUB_SHA"))
        }
        let key = String(text[..<equals])
        let value = String(text[text.index(after: equals)...])
        guard isLabelName(key), !key.hasPrefix("__") else {
            return .failure(
                .badLabel(
                    text, "KEY must be a Prometheus label name: letters, digits and _, not starting with a digit or __")
            )
        }
        guard !reserved.contains(key) else {
            return .failure(.badLabel(text, "\(key) is set by lagmon; choose another key"))
        }
        guard !value.isEmpty else { return .failure(.badLabel(text, "VALUE is empty")) }
        return .success(MetricLabel(key: key, value: value))
    }

    static func isLabelName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            return false
        }
        return name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
        }
    }
}
