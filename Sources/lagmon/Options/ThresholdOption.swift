import ArgumentParser
import LagmonCore

/// `-t`/`--threshold`, shared by `run` and `attach`.
struct ThresholdOption: ParsableArguments {
    @Option(
        name: [.customShort("t"), .long],
        parsing: .unconditional,
        help: ArgumentHelp(
            "A loop awake (busy) longer than this in one iteration is stalled (units: ns, us, ms, s, m or min, h; default: \(DurationText.format(nanoseconds: SessionSettings.defaultThresholdNs))).",
            valueName: "duration"),
        transform: DurationArgument.parse)
    var threshold = DurationArgument(nanoseconds: SessionSettings.defaultThresholdNs)

    /// The session's settings, from this and the sampling options: built once, here.
    func settings(_ sampling: SamplingOptions) -> SessionSettings {
        SessionSettings(
            thresholdNs: threshold.nanoseconds, sampleIntervalNs: sampling.sampleInterval.nanoseconds,
            stacks: !sampling.noStacks, cpuIntervalNs: sampling.noCPU ? nil : sampling.cpuInterval.nanoseconds,
            cpuAlertPct: sampling.cpuAlert > 0 ? sampling.cpuAlert : nil)
    }
}
