/// The one rule deciding whether a piece of lagmon's output may use colour: the stderr summary,
/// the live status line, the gate's verdict, `lagmon report`'s summary on stdout.
///
/// `--color always` and `--color never` (or `--no-color`) decide alone. Under `auto`, the
/// default, in this order: `CLICOLOR_FORCE` or `FORCE_COLOR` set to anything but empty or `0`
/// forces colour (as CI systems that render ANSI set them); `NO_COLOR` set and not empty turns it
/// off (https://no-color.org); otherwise colour exactly when the stream is a terminal and `TERM`
/// is not `dumb`.
public enum ColorPolicy: String, CaseIterable, Sendable {
    case auto
    case always
    case never

    /// Whether output to a stream may be coloured; `isTerminal` says whether that stream is a
    /// terminal and `environment` is the process's.
    public func colors(isTerminal: Bool, environment: [String: String]) -> Bool {
        switch self {
        case .always: return true
        case .never: return false
        case .auto:
            let forced = ["CLICOLOR_FORCE", "FORCE_COLOR"].contains { Self.isSet(environment[$0]) }
            if forced { return true }
            if !(environment["NO_COLOR"] ?? "").isEmpty { return false }
            return isTerminal && environment["TERM"] != "dumb"
        }
    }

    /// Set to something other than empty or `0`.
    private static func isSet(_ value: String?) -> Bool {
        guard let value, !value.isEmpty else { return false }
        return value != "0"
    }
}
