import LagmonCore
import Testing

/// HotSpot's sleeps, waits and parks, all futex waits, told from a contended `synchronized` by the
/// waiting thread's frames.
struct JavaWaitTests {
    static let futex = SyscallInfo(number: 202, name: "futex", arguments: [0x7f00_0000_1000, 0x80, 2, 0, 0, 0])
    static let waiting = ThreadStateSample(
        state: .sleeping, syscall: futex, wchan: "futex_wait_queue", runDelayNs: 0, onCPUNs: 0)
    static let condition = Fixture.frame("pthread_cond_timedwait@@GLIBC_2.3.2", "libc.so.6", offset: 0x100)
    static let park = Fixture.frame("os::PlatformEvent::park(long)", "libjvm.so", offset: 0x200)

    static func java(_ symbol: String) -> Frame {
        var frame = Frame(symbol: symbol, module: "[jit]", offset: 0, address: 0x7f00)
        frame.runtime = .java
        return frame
    }

    static func sample(_ frames: [Frame]) -> ResolvedSample {
        Fixture.sample([condition, park] + frames + [java("Handler.handle")], state: waiting)
    }

    @Test func theJavaMethodOrHotSpotsFunctionNamesTheWait() {
        #expect(JavaWait.of([Self.condition, Self.java("java.lang.Thread.sleep")]) == .sleep)
        #expect(JavaWait.of([Self.condition, Fixture.frame("JVM_Sleep", "libjvm.so", offset: 1)]) == .sleep)
        #expect(JavaWait.of([Self.java("java.lang.Object.wait")]) == .objectWait)
        #expect(JavaWait.of([Fixture.frame("Unsafe_Park", "libjvm.so", offset: 1)]) == .park)
        #expect(JavaWait.of([Fixture.frame("ObjectMonitor::EnterI(JavaThread*)", "libjvm.so", offset: 1)]) == .monitor)
        #expect(JavaWait.of([Self.condition, Fixture.frame("worker_main", "app", offset: 1)]) == nil)
    }

    @Test func aWaitOutranksTheMonitorReentryUnderIt() {
        let reentry = Fixture.frame("ObjectMonitor::ReenterI(JavaThread*, ObjectWaiter*)", "libjvm.so", offset: 1)
        let wait = Fixture.frame("ObjectMonitor::wait(long, bool, JavaThread*)", "libjvm.so", offset: 2)
        let enter = Fixture.frame("ObjectMonitor::enter(JavaThread*)", "libjvm.so", offset: 3)
        #expect(JavaWait.of([reentry, enter, wait]) == .objectWait)
    }

    @Test func aSleepIsDiagnosedAsOneAndAMonitorAsALock() throws {
        let sleeps = (0..<3).map { _ in Self.sample([Self.java("java.lang.Thread.sleep")]) }
        let sleep = try #require(JavaWait.analyze(sleeps))
        let diagnosis = sleep.diagnosis(durationNs: 300_000_000)
        #expect(diagnosis.kind == .sleep && diagnosis.text == "sleeping for 300ms (java.lang.Thread.sleep)")
        let monitor = JavaWait.monitor.diagnosis(durationNs: 300_000_000)
        #expect(monitor.kind == .lock && monitor.text.contains("Java monitor"))
    }

    @Test func onlySamplesInAFutexCount() {
        var running = Self.sample([Self.java("java.lang.Thread.sleep")])
        running.sample.state = ThreadStateSample(state: .running, syscall: nil, wchan: nil, runDelayNs: 0, onCPUNs: 0)
        #expect(JavaWait.analyze([running]) == nil)
    }
}
