import Glibc
import LagmonCore
import LagmonLinux

/// The live status line on stderr while `lagmon run` watches: only on a terminal and without
/// `--quiet`.
enum LiveView {
    /// Runs `body` (the session) with the status line drawn meanwhile, and erased afterwards.
    static func during<T>(_ session: RunSession, output: OutputOptions, _ body: () throws -> T) throws -> T {
        try during(progress: { session.progress() }, output: output, body)
    }

    /// Runs `body` with the status line drawn from `progress` meanwhile (nothing while it is nil).
    static func during<T>(
        progress: @escaping @Sendable () -> SessionProgress?, output: OutputOptions, _ body: () throws -> T
    ) throws -> T {
        guard !output.quiet, isatty(STDERR_FILENO) == 1 else { return try body() }
        let style = LiveStatusLine(style: TerminalStyle(colors: output.colorsEnabled))
        let display = LiveStatusDisplay(fd: STDERR_FILENO) { width in
            progress().map { style.render($0, width: width) }
        }
        try? display.start()
        defer { display.stop() }
        return try body()
    }
}
