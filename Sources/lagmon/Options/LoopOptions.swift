import ArgumentParser
import LagmonCore

/// Which loops and processes `lagmon run` watches.
struct LoopOptions: ParsableArguments {
    @Option(
        name: .customLong("loops"),
        help: ArgumentHelp(
            "Loops to watch and report: auto (the default: the main thread's loop when it has one, otherwise every event-loop thread, the Swift main actor and the cooperative pool; every loop of node, its worker_threads' included; every tokio worker), main (each process's main thread), all (every loop), or thread names (comm; * matches any characters; main-actor is the Swift main actor), comma-separated or repeated; main and names combine.",
            valueName: "auto|main|all|name"))
    var loops: [String] = []

    @Flag(
        name: .customLong("follow-children"),
        help:
            "Also watch the processes the program starts (forks and execs inherit the probe); each appears in the report. Those that outlive the program (a server left running, a daemon) are watched until the last one ends; lagmon exits with the program's status."
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
