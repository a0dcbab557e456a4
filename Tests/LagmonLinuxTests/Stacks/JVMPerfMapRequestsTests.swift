import LagmonCore
import Testing

@testable import LagmonLinux

/// When the sampler may ask a JVM for its perf map: once a second within a busy period, at once
/// for a new one, never past the request or failure budget.
struct JVMPerfMapRequestsTests {
    static let success: Result<JVMAttach.Request, JVMAttach.Failure> = .success(
        JVMAttach.Request(pid: 1, nsPid: 1, startedListener: true, mapExisted: false, sharesTmp: true))
    static let failure: Result<JVMAttach.Request, JVMAttach.Failure> = .failure(JVMAttach.Failure(reason: "no"))
    static let second: UInt64 = 1_000_000_000

    @Test func aNewBusyPeriodMayAskAtOnceTheSameOneOnceASecond() {
        var requests = JVMPerfMapRequests()
        #expect(requests.mayRequest(atNs: 0, key: 1))
        requests.record(Self.success, atNs: 10, key: 1)
        #expect(!requests.mayRequest(atNs: 10 + Self.second / 2, key: 1))
        #expect(requests.mayRequest(atNs: 10 + Self.second, key: 1))
        // The next stall, less than a second later, asks for its own code.
        #expect(requests.mayRequest(atNs: 10 + Self.second / 2, key: 2))
        requests.record(Self.success, atNs: 10 + Self.second / 2, key: 2)
        #expect(!requests.mayRequest(atNs: 10 + Self.second, key: 2))
    }

    @Test func theBudgetsHoldAcrossBusyPeriods() {
        var requests = JVMPerfMapRequests()
        for key in 0..<UInt64(JVMPerfMapRequests.maxRequests) {
            #expect(requests.mayRequest(atNs: key, key: key))
            requests.record(Self.success, atNs: key, key: key)
        }
        #expect(!requests.mayRequest(atNs: 100 * Self.second, key: 1000))
        var failing = JVMPerfMapRequests()
        for key in 0..<UInt64(JVMPerfMapRequests.maxFailures) { failing.record(Self.failure, atNs: key, key: key) }
        #expect(!failing.mayRequest(atNs: 100 * Self.second, key: 1000))
    }
}
