extension SessionSettings {
    /// The stall detector's tuning: sampling starts at half the threshold, so a stall's first
    /// samples show how it began (without stacks there is nothing to arm).
    public var detector: StallDetector.Configuration {
        StallDetector.Configuration(
            thresholdNs: thresholdNs, stalledPollNs: sampleIntervalNs, armLeadNs: stacks ? thresholdNs / 2 : 0)
    }
}
