import ArgumentParser
import LagmonCore

/// Stack and CPU sampling settings.
struct SamplingOptions: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Time between stack samples of a stalled loop (default: \(DurationText.format(nanoseconds: SessionSettings.defaultSampleIntervalNs))).",
            valueName: "duration"),
        transform: DurationArgument.parse)
    var sampleInterval = DurationArgument(nanoseconds: SessionSettings.defaultSampleIntervalNs)

    @Flag(name: .customLong("no-stacks"), help: "Do not sample stacks (no ptrace); stalls are still detected.")
    var noStacks = false

    @Option(
        name: .customLong("cpu-interval"),
        parsing: .unconditional,
        help: ArgumentHelp(
            "Time between per-thread CPU readings (default: \(DurationText.format(nanoseconds: SessionSettings.defaultCPUIntervalNs))).",
            valueName: "duration"),
        transform: DurationArgument.parse)
    var cpuInterval = DurationArgument(nanoseconds: SessionSettings.defaultCPUIntervalNs)

    @Option(
        name: .customLong("cpu-alert"),
        help: ArgumentHelp(
            "Sample the stack of a thread that stays at or above this CPU % (of one core) for two readings; 0 turns alerts off.",
            valueName: "percent"))
    var cpuAlert: Double = SessionSettings.defaultCPUAlertPct

    @Flag(name: .customLong("no-cpu"), help: "Do not read per-thread CPU.")
    var noCPU = false

    func validate() throws {
        guard cpuAlert >= 0, cpuAlert.isFinite else {
            throw ValidationError("invalid --cpu-alert \(cpuAlert): use a percentage of one core, 0 to turn alerts off")
        }
        guard sampleInterval.nanoseconds >= 1_000_000 else {
            throw ValidationError("--sample-interval must be at least 1ms (each sample briefly stops the thread)")
        }
        guard cpuInterval.nanoseconds >= 10_000_000 else {
            throw ValidationError("--cpu-interval must be at least 10ms (/proc CPU times tick every 10ms)")
        }
    }
}
