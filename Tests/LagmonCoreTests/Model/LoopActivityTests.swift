import LagmonCore
import Testing

struct LoopActivityTests {
    @Test func rawValuesAreCoreFoundationBits() {
        #expect(LoopActivity.allCases.map(\.rawValue) == [0, 1, 2, 4, 32, 64, 128])
    }

    @Test(arguments: [UInt32(8), 16, 3, 96, 256, UInt32.max])
    func unknownBitsReadAsNone(bits: UInt32) {
        #expect(LoopActivity(bits: bits) == .none)
    }

    @Test func knownBitsReadAsThemselves() {
        for activity in LoopActivity.allCases { #expect(LoopActivity(bits: activity.rawValue) == activity) }
    }

    @Test func onlySourcesAndWakingCanStall() {
        #expect(LoopActivity.allCases.filter(\.isStalling) == [.beforeSources, .afterWaiting])
    }

    @Test func sleepingExitedAndUnknownAreIdle() {
        #expect(LoopActivity.allCases.filter(\.isIdle) == [.none, .beforeWaiting, .exit])
    }

    @Test func namesMatchTheCaseNames() {
        #expect(
            LoopActivity.allCases.map(\.name) == [
                "none", "entry", "beforeTimers", "beforeSources", "beforeWaiting", "afterWaiting", "exit",
            ])
    }
}
