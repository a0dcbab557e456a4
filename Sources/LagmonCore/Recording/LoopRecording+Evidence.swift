/// Which stack samples of a busy period show its stall. A sample is requested while the loop is
/// stalled but taken when the sampler gets to it; on a loaded machine that can be after the
/// stall ended, and such a sample shows whatever the thread did next — most often the loop's own
/// wait call, which would then be named the culprit.
extension LoopRecording {
    /// The samples of stall `record` that were taken while it lasted.
    public func evidence(of record: StallRecord) -> [ResolvedSample] {
        (stallSamples[record.startNs] ?? []).filter { isEvidence($0.sample, of: record) }
    }

    /// Whether `sample` shows stall `record`: it was asked for no later than the stall's end
    /// (one asked for after it found the thread past it), and, for a loop watched from /proc,
    /// the thread was not stopped inside an event-loop wait call — for the /proc probe that is
    /// the loop waiting, so the stall had ended, even if the probe's readings had not seen it yet.
    public func isEvidence(_ sample: StackSample, of record: StallRecord) -> Bool {
        guard sample.timestampNs <= record.endNs else { return false }
        guard observer == ProcLoopProbe.observerName else { return true }
        return ProcLoopReading.state(atStopIn: sample.syscallAtStop, waitChannelBefore: sample.state?.wchan) != .waiting
    }
}
