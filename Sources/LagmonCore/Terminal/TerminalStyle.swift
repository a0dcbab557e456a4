/// ANSI styling that disappears when colours are off (not a TTY, `NO_COLOR`, `--no-color`).
public struct TerminalStyle: Sendable, Equatable {
    /// Whether escape sequences are emitted.
    public var colors: Bool

    public init(colors: Bool) {
        self.colors = colors
    }

    public func bold(_ text: String) -> String { wrap(text, "1") }
    public func dim(_ text: String) -> String { wrap(text, "2") }
    public func red(_ text: String) -> String { wrap(text, "31") }
    public func yellow(_ text: String) -> String { wrap(text, "33") }
    public func green(_ text: String) -> String { wrap(text, "32") }

    private func wrap(_ text: String, _ code: String) -> String {
        colors ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
