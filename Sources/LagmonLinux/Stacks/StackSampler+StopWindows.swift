extension StackSampler {
    /// Thread `tid` may be put in a ptrace stop from now on: its /proc `syscall` file is no
    /// reading of the loop until `closeStopWindows()` finds it let go (`onStopWindow`).
    func openStopWindow(tid: Int32) {
        guard stopWindows.insert(tid).inserted else { return }
        options.onStopWindow?(tid, true)
    }

    /// Closes the window of every thread no longer seized: let go at the end of its pause, or
    /// detached later from a stop that came late (`ThreadTracer.serviceStops()`).
    func closeStopWindows() {
        for tid in stopWindows where tracers[tid]?.attached != true {
            stopWindows.remove(tid)
            options.onStopWindow?(tid, false)
        }
    }
}
