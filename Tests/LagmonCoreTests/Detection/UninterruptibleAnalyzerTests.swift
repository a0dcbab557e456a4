import LagmonCore
import Testing

/// What /proc said about a thread in D, summarised per stall.
struct UninterruptibleAnalyzerTests {
    static func inD(_ syscall: String?, fd: UInt64 = 0, target: String? = nil, kernel: [String]? = nil) -> StackSample {
        var state = Fixture.state(.diskSleep, syscall: syscall, fd: fd, target: target, wchan: "percpu_rwsem_wait")
        state.kernelStack = kernel
        var sample = StackSample(
            timestampNs: 0, tid: 100, addresses: [], outcome: .failed, pauseNs: 0, unwindNs: 0, state: state)
        sample.isStateOnly = true
        return sample
    }

    @Test func theCommonCallFileAndKernelStackAreNamed() throws {
        let kernel = ["percpu_rwsem_wait", "vfs_write"]
        let samples = [
            Self.inD("write", fd: 6, target: "/mnt/data", kernel: kernel),
            Self.inD("write", fd: 6, target: "/mnt/data", kernel: kernel),
            Self.inD("restart_syscall"),
            Fixture.sample([Fixture.frame("main")]).sample,  // running, stopped: not in D
        ]
        let report = try #require(UninterruptibleAnalyzer.analyze(samples))
        #expect(report.samples == 3 && report.withoutStack == 3)
        #expect(report.syscall == "write" && report.fd == 6 && report.file == "/mnt/data")
        #expect(report.wchan == "percpu_rwsem_wait")
        #expect(report.kernelStack == kernel)
    }

    @Test func withoutDSamplesThereIsNothing() {
        #expect(UninterruptibleAnalyzer.analyze([Fixture.sample([Fixture.frame("main")]).sample]) == nil)
        #expect(UninterruptibleAnalyzer.analyze([]) == nil)
    }
}
