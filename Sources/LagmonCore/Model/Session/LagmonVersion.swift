/// lagmon's version, stamped into reports and printed by `lagmon --version`.
public enum LagmonVersion {
    public static let current = "0.1.0"
}
