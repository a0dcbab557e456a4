import LagmonCore

extension StackSampler {
    /// Whether a sample request of busy period `key` is to be served: always, unless
    /// `maxSamplesPerPeriod` bounds the samples a period keeps (`SampleThinning`).
    func admitsSample(key: UInt64) -> Bool {
        guard let capacity = options.maxSamplesPerPeriod else { return true }
        return thinnings[key, default: SampleThinning(capacity: capacity)].admitsNext()
    }

    /// Halves the samples of busy period `key` once they reached `maxSamplesPerPeriod`; those
    /// let go are counted in `dropped`, so the samples taken stay exact.
    func thinSamples(key: UInt64) {
        guard var thinning = thinnings[key], var samples = result.samples[key] else { return }
        let released = thinning.thin(&samples)
        guard !released.isEmpty else { return }
        thinnings[key] = thinning
        result.samples[key] = samples
        let stateOnly = released.filter(\.isStateOnly).count
        result.dropped += released.count - stateOnly
        result.droppedStateOnly += stateOnly
    }
}
