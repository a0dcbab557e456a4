import LagmonCore
import Testing

/// A long `lagmon attach` holds thousands of stack samples: the fields few samples carry are
/// out of line, and a sample stays a plain value.
struct StackSampleLayoutTests {
    private func sample() -> StackSample {
        StackSample(timestampNs: 1, tid: 2, addresses: [3], outcome: .complete, pauseNs: 4, unwindNs: 5, state: nil)
    }

    @Test func aSampleIsSmallInline() {
        #expect(MemoryLayout<StackSample>.stride <= 256, "was 704 with the rare fields inline")
    }

    @Test func rareFieldsReadBackAndClearingThemLeavesAPlainSample() {
        var first = sample()
        let opening = TimedThreadState(
            timestampNs: 7,
            state: ThreadStateSample(state: .running, syscall: nil, wchan: nil, runDelayNs: 8, onCPUNs: 9))
        first.openingState = opening
        first.busiestOthers = []
        #expect(first.openingState == opening)
        #expect(first.busiestOthers == [])
        #expect(first.closingState == nil && first.lock == nil && first.majorFaultSites == nil)
        var copy = first
        copy.openingState = nil
        #expect(first.openingState == opening, "a copy's change leaves the original alone")
        copy.busiestOthers = nil
        #expect(copy == sample())
        #expect(first != sample())
    }
}
