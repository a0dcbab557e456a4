import ArgumentParser
import LagmonCore

/// Which loops and processes `lagmon run` watches.
struct LoopOptions: ParsableArguments {
    @Option(
        name: .customLong("loops"),
        help: ArgumentHelp(
            "Loops to watch and report: main (each process's main thread; the default), all (every thread that runs an event loop), or thread names (comm; * matches any characters), comma-separated or repeated; main and names combine.",
            valueName: "main|all|name"))
    var loops: [String] = []

    @Flag(
        name: .customLong("follow-children"),
        help:
            "Also watch the processes the program starts (forks and execs inherit the probe); each appears in the report."
    )
    var followChildren = false

    func validate() throws {
        _ = try selection()
    }

    /// The parsed `--loops`.
    func selection() throws -> LoopSelection {
        do {
            return try LoopSelection.parse(loops)
        } catch {
            throw ValidationError(error.description)
        }
    }
}
