extension SamplingReport {
    /// What sampling cost and how complete its stacks were, over `samples` (every stack sample
    /// of the session) and `lost` samples that could not be taken. Percentiles are exact
    /// (nearest rank); all zero without samples.
    public init(samples: [StackSample], unavailable: String? = nil, lost: Int = 0) {
        let pauses = samples.map(\.pauseNs).sorted()
        let costs = samples.map { sample in
            let (sum, overflow) = sample.pauseNs.addingReportingOverflow(sample.unwindNs)
            return overflow ? UInt64.max : sum
        }.sorted()
        let complete = samples.filter { $0.outcome == .complete }.count
        self.init(
            samples: samples.count, pauseNsP50: Self.percentile(50, of: pauses),
            pauseNsP99: Self.percentile(99, of: pauses), pauseNsMax: pauses.last ?? 0,
            sampleNsP50: Self.percentile(50, of: costs),
            unwindErrors: samples.filter { $0.outcome == .failed }.count,
            truncated: samples.filter { $0.outcome == .truncated }.count,
            completeness: samples.isEmpty ? 0 : Double(complete) / Double(samples.count), unavailable: unavailable)
        self.samplesLost = lost
        let unreadable = samples.filter(\.memoryUnreadable).count
        if unreadable > 0 { memoryUnreadableSamples = unreadable }
        let reads = samples.compactMap(\.interpreterReadNs).sorted()
        if !reads.isEmpty {
            interpreterSamples = reads.count
            interpreterReadNsP50 = Self.percentile(50, of: reads)
        }
    }

    /// The nearest-rank `percent` percentile of `sorted` (ascending); 0 when empty.
    static func percentile(_ percent: Int, of sorted: [UInt64]) -> UInt64 {
        guard !sorted.isEmpty else { return 0 }
        let rank = (percent * sorted.count + 99) / 100
        return sorted[max(rank, 1) - 1]
    }
}
