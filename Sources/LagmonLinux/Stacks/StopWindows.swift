/// The threads that may be in one of the sampler's ptrace stops: a window opens before a thread
/// may be stopped and closes once it is let go, each told to `onChange` (the /proc probe of the
/// thread's loop does not take its `syscall` file as a reading meanwhile).
struct StopWindows {
    private let onChange: (@Sendable (_ tid: Int32, _ open: Bool) -> Void)?
    /// Threads whose window is open.
    private var open: Set<Int32> = []

    init(onChange: (@Sendable (_ tid: Int32, _ open: Bool) -> Void)?) { self.onChange = onChange }

    /// Thread `tid` may be put in a ptrace stop from now on: its /proc `syscall` file is no
    /// reading of the loop until `close(keeping:)` finds it let go.
    mutating func open(tid: Int32) {
        guard open.insert(tid).inserted else { return }
        onChange?(tid, true)
    }

    /// Closes the window of every thread no longer seized (not attached in `tracers`): let go at
    /// the end of its pause, or detached later from a stop that came late
    /// (`ThreadTracer.serviceStops()`).
    mutating func close(keeping tracers: [Int32: ThreadTracer]) {
        for tid in open where tracers[tid]?.attached != true {
            open.remove(tid)
            onChange?(tid, false)
        }
    }
}
