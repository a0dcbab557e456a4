import LagmonCore

extension LoopRecording {
    /// Everything `slot` says about its loop, with what its watchdog gathered, as plain values:
    /// the target's claims, not yet checked (see `plausible(untilNs:)`).
    public init(slot: ChannelSlot, result: Watchdog.Result) {
        let counters = slot.counters()
        self.init(
            thread: slot.thread, pid: slot.pid, observer: slot.observerName, claimedNs: slot.claimedNs,
            passes: counters.passes, transitions: counters.transitions, busyCount: counters.busyCount,
            busyTotalNs: counters.busyTotalNs, busyMaxNs: counters.busyMaxNs, busyBuckets: slot.busyBuckets(),
            openBusySinceNs: slot.openBusySinceNs, lastSnapshot: slot.snapshot(), stallRecords: result.stallRecords,
            stallRecordsLost: result.stallRecordsLost, liveStallNoticedNs: result.liveStallNoticedNs)
        longIterations = result.longIterations
        longIterationsOmitted = result.longIterationsOmitted
        (blockingCalls, blockingCallsUnrecorded, blockingCallsRejected) = slot.blockingCalls()
    }
}
