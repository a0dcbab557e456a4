/// Summarises what /proc said about a stalled thread each time a sample found it in
/// uninterruptible sleep (`D`): the call, its file, the wait channel, the kernel stack. Pure.
public enum UninterruptibleAnalyzer {
    /// The summary of the `D` samples among `samples`; nil when there are none.
    public static func analyze(_ samples: [StackSample]) -> UninterruptibleReport? {
        let states = samples.compactMap(\.state).filter { $0.state == .diskSleep }
        guard !states.isEmpty else { return nil }
        var report = UninterruptibleReport(
            samples: states.count,
            withoutStack: samples.filter { $0.isStateOnly && $0.state?.state == .diskSleep }.count)
        let calls = states.compactMap(\.syscall).filter { $0.number != SyscallTable.restartNumber }
        if let name = LockWaitAnalyzer.mostCommon(calls.map(\.name)) {
            report.syscall = name
            let same = calls.filter { $0.name == name }
            if let target = LockWaitAnalyzer.mostCommon(same.compactMap(\.descriptorTarget)) {
                report.file = target
                report.fd = same.first { $0.descriptorTarget == target }?.arguments.first.map { Int64(bitPattern: $0) }
            }
        }
        report.wchan = LockWaitAnalyzer.mostCommon(states.compactMap(\.wchan))
        report.kernelStack = LockWaitAnalyzer.mostCommon(states.compactMap(\.kernelStack).filter { !$0.isEmpty })
        return report
    }
}
