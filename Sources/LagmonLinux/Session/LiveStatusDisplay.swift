import CLagmonLinux
import Glibc
import LagmonCore
import Synchronization

/// Keeps one status line on the terminal's bottom row, redrawn from a thread of its own every
/// `intervalNs` until stopped, then erased. The row is reserved with a scroll region
/// (StatusRegion), so the program's own output, written to the same terminal, scrolls above it
/// and never mixes with it. The line is cut to the terminal's width and the region follows the
/// terminal's height, both asked at every draw, so resizes are followed; a terminal under three
/// rows gets no status line.
public final class LiveStatusDisplay: Sendable {
    /// The terminal's descriptor (stderr).
    public let fd: Int32
    /// Time between redraws.
    public let intervalNs: UInt64
    private let line: @Sendable (_ width: Int) -> String?
    private let stopping = Atomic<Bool>(false)
    /// The height the scroll region was set for; 0 while none is set.
    private let reservedRows = Atomic<Int>(0)
    private let wakeup = Semaphore()
    private let thread = WorkerThread()

    /// A display on `fd` whose text comes from `line`, called with the width available (nil:
    /// nothing to show yet).
    public init(fd: Int32, intervalNs: UInt64 = 100_000_000, line: @escaping @Sendable (_ width: Int) -> String?) {
        self.fd = fd
        self.intervalNs = max(intervalNs, 10_000_000)
        self.line = line
    }

    /// Starts redrawing (once). The drawing thread blocks every signal: it starts before a
    /// session blocks the signals it takes itself (SIGINT…), and a process-directed signal goes
    /// to any thread that does not block it, where its default action would end lagmon.
    public func start() throws {
        guard !thread.isStarted else { return }
        var all = sigset_t()
        var previous = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_BLOCK, &all, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        try thread.start(name: "lagmon-live") { [self] in run() }
    }

    /// Stops redrawing and erases the line.
    public func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        wakeup.post()
        thread.join()
        let rows = reservedRows.load(ordering: .sequentiallyConsistent)
        if rows > 0 { write(StatusRegion.release(rows: rows)) }
    }

    private func run() {
        var deadlineNs = MonotonicClock.nowNs()
        while !stopping.load(ordering: .sequentiallyConsistent) {
            draw()
            deadlineNs += intervalNs
            // Posted only by stop(): a timeout is the normal way out.
            wakeup.wait(untilMonotonicNs: max(deadlineNs, MonotonicClock.nowNs()))
        }
    }

    private func draw() {
        let columns = Int(lagmon_terminal_columns(fd))
        let rows = Int(lagmon_terminal_rows(fd))
        // One column short of the edge: writing the last column makes some terminals wrap.
        guard let text = line(columns > 1 ? columns - 1 : 79) else { return }
        let reserved = reservedRows.load(ordering: .sequentiallyConsistent)
        if reserved != rows {
            let setup = reserved == 0 ? StatusRegion.reserve(rows: rows) : StatusRegion.resize(rows: rows)
            guard let setup else { return }
            write(setup)
            reservedRows.store(rows, ordering: .sequentiallyConsistent)
        }
        write(StatusRegion.draw(text, rows: rows))
    }

    private func write(_ text: String) {
        try? AtomicFile.writeAll(Array(text.utf8), to: fd)
    }
}
