import ArgumentParser
import Foundation

/// lagmon-demo: an image list that loads thumbnails, written several ways, to show what lagmon
/// sees. Every injected stall has a deterministic length and a distinctively named function.
@main
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lagmon-demo",
        abstract: "An image list on a Foundation run loop that stalls (or not) on purpose.",
        discussion: """
            Scenarios: naive (decode on the main thread: one stall per row), cached (only the \
            first pass stalls), async (decode on a keep-alive worker thread: no stalls), batched \
            (one decode slice per loop iteration: no stalls, longer total time), lock (the main \
            thread waits for a lock a worker holds), io (the main thread blocks reading a slow \
            pipe), crash (stalls, then crashes with SIGSEGV), hang (stalls until killed), \
            interruptible (stalls until the first SIGINT, idles until the second), idle \
            (a loop that only sleeps), spin (a thread burning CPU while the loop idles), noloop \
            (busy on the main thread without ever running the run loop), many (--stalls short \
            stalls of --stall-ms each, for scale tests), threads (--threads sleeping threads \
            while the loop idles for --seconds).
            """)

    @Option(
        help:
            "naive, cached, async, batched, lock, io, crash, hang, interruptible, idle, spin, noloop, many or threads.")
    var scenario: Scenario = .naive

    @Option(help: "Rows in the list.")
    var rows = 6

    @Option(help: "Write what was injected (JSON: one entry per intended stall) to this path.")
    var truth: String?

    @Option(help: "Seconds the idle, spin and noloop scenarios run.")
    var seconds = 1.0

    @Option(help: "Sleeping threads the threads scenario starts.")
    var threads = 100

    @Option(help: "Stalls the many scenario injects.")
    var stalls = 1000

    @Option(help: "Length of each stall of the many scenario, in milliseconds.")
    var stallMs = 2.0

    @Option(help: "Exit with this status when the scenario completes.")
    var exitStatus: Int32 = 0

    @Flag(help: "Make the process non-dumpable (prctl), as hardened programs are: only CAP_SYS_PTRACE may trace it.")
    var notDumpable = false

    @Flag(help: "Idle in the run loop until a line arrives on stdin, then begin (to attach lagmon first).")
    var waitForInput = false

    func run() throws {
        if notDumpable { makeNotDumpable() }
        let log = TruthLog(path: truth)
        if scenario == .noloop {
            // Foundation is loaded, the main thread is busy, but no run loop ever runs.
            announce("busy without a run loop")
            _ = ImageDecoder.decodeImage(Data(count: 65_536), row: 0, budgetNs: UInt64(seconds * 1e9))
            announce("done")
            return
        }
        let demo = DemoRun(
            scenario: scenario, rows: rows, seconds: seconds, log: log, exitStatus: exitStatus,
            many: (stalls, UInt64(stallMs * 1e6)), threads: threads)
        demo.start(waitingForInput: waitForInput)
        RunLoop.main.run(until: .distantFuture)
    }
}
