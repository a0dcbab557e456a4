extension ThreadDump {
    /// The activity /proc's state shows: a loop wait call (or a poll or select restarted after a
    /// stop, by its `wchan`) is waiting, no call is busy, any other call is blocked.
    public static func activity(of state: ThreadStateSample?) -> Activity {
        guard let state else { return .gone }
        switch state.state {
        case .stopped, .tracingStop: return .stopped
        case .zombie, .dead: return .gone
        default: break
        }
        guard let call = state.syscall else { return .busy }
        if SyscallTable.isEventLoopWait(call.number) { return .waiting }
        if call.number == SyscallTable.restartNumber, let wchan = state.wchan,
            ProcLoopReading.state(ofRestartedWaitChannel: ArraySlice(wchan.utf8)) == .waiting
        {
            return .waiting
        }
        return .blocked
    }
}
