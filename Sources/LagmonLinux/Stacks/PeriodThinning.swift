import LagmonCore

/// With a bound on the samples one busy period keeps (`StackSampler.Options.maxSamplesPerPeriod`):
/// the thinning of each period being sampled, until its end (`SampleThinning`).
struct PeriodThinning {
    /// Samples kept of one busy period at most; nil: every one.
    let capacity: Int?
    private var thinnings: [UInt64: SampleThinning] = [:]

    init(capacity: Int?) { self.capacity = capacity }

    /// Whether a sample request of busy period `key` is to be served: always, unless a capacity
    /// bounds the samples a period keeps.
    mutating func admitsSample(key: UInt64) -> Bool {
        guard let capacity else { return true }
        return thinnings[key, default: SampleThinning(capacity: capacity)].admitsNext()
    }

    /// Halves the samples of busy period `key` once they reached the capacity; those let go are
    /// counted in `dropped`, so the samples taken stay exact.
    mutating func thin(key: UInt64, result: inout StackSampler.Result) {
        guard var thinning = thinnings[key], var samples = result.samples[key] else { return }
        let released = thinning.thin(&samples)
        guard !released.isEmpty else { return }
        thinnings[key] = thinning
        result.samples[key] = samples
        let stateOnly = released.filter(\.isStateOnly).count
        result.dropped += released.count - stateOnly
        result.droppedStateOnly += stateOnly
    }

    /// Busy period `key` ended, or its samples were let go.
    mutating func forget(key: UInt64) { thinnings.removeValue(forKey: key) }
}
