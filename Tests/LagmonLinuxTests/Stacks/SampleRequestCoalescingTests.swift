import Testing

@testable import LagmonLinux

/// A sampler that fell behind serves only what is still worth a stop: no sample of a busy period
/// that has ended since it was asked for; every sample of a period still going.
struct SampleRequestCoalescingTests {
    /// What a request is, for comparing lists of them.
    private func names(_ requests: [StackSampler.Request]) -> [String] {
        requests.map { request in
            switch request {
            case .sample(_, let tid, let key): "sample \(tid)/\(key)"
            case .finish(_, let tid, let key, _, let ended): "finish \(tid)/\(key)\(ended ? " ended" : "")"
            case .prepare(let pid): "prepare \(pid)"
            case .drop(let keys): "drop \(keys)"
            case .copy: "copy"
            }
        }
    }

    @Test func aSampleOfAPeriodThatEndedMeanwhileIsNotServed() {
        // Back-to-back busy periods 1 and 2 of thread 7, all asked for before the sampler looked.
        let batch: [StackSampler.Request] = [
            .sample(tid: 7, key: 1), .sample(tid: 7, key: 1), .finish(tid: 7, key: 1, periodEnded: true),
            .sample(tid: 7, key: 2), .sample(tid: 8, key: 5), .sample(tid: 7, key: 2),
        ]
        #expect(
            names(StackSampler.served(batch)) == ["finish 7/1 ended", "sample 7/2", "sample 8/5", "sample 7/2"])
    }

    @Test func aOneOffSampleFinishedAtOnceIsServed() {
        // `lagmon dump` and CPU alerts ask for one sample and let the thread go after it.
        let batch: [StackSampler.Request] = [
            .prepare(pid: 3), .sample(tid: 7, key: 7), .finish(tid: 7, key: 7), .sample(tid: 8, key: 8),
            .finish(tid: 8, key: 8), .drop(keys: [4]),
        ]
        #expect(
            names(StackSampler.served(batch)) == [
                "prepare 3", "sample 7/7", "finish 7/7", "sample 8/8", "finish 8/8", "drop [4]",
            ])
    }

    @Test func everySampleOfAPeriodThatGoesOnIsServed() {
        // A burst of requests is how a caller asks for several samples of one period.
        let batch: [StackSampler.Request] = [.sample(tid: 7, key: 1), .sample(tid: 7, key: 1), .sample(tid: 7, key: 1)]
        #expect(names(StackSampler.served(batch)) == ["sample 7/1", "sample 7/1", "sample 7/1"])
        // Another thread's period with the same start is another period.
        #expect(
            names(StackSampler.served([.sample(tid: 7, key: 1), .finish(tid: 9, key: 1, periodEnded: true)]))
                == ["sample 7/1", "finish 9/1 ended"])
    }
}
