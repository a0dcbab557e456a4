/// Names the lock a stalled loop waited on, and its holder, from the stall's samples: the lock
/// each sample read (`LockObservation`), confirmed by the waiter's own frames (the glibc or
/// Swift function it waits in), and the holder's stacks. Pure and deterministic.
public struct LockWaitAnalyzer: Sendable {
    /// Makes the holder's profile (culprit, stacks).
    public var profiler: StallProfiler
    /// Holder stacks listed, at most.
    public var maxHolderStacks: Int

    public init(profiler: StallProfiler = StallProfiler(), maxHolderStacks: Int = 3) {
        self.profiler = profiler
        self.maxHolderStacks = maxHolderStacks
    }

    /// The lock the samples of a stall by thread `tid` waited on most; nil when none read one.
    public func analyze(_ samples: [ResolvedSample], tid: Int32) -> LockWaitReport? {
        let waits = samples.filter { $0.sample.lock != nil }
        guard let address = Self.mostCommon(waits.compactMap(\.sample.lock?.futexAddress)) else { return nil }
        let onWord = waits.filter { $0.sample.lock?.futexAddress == address }
        let layout = Self.mostCommon(onWord.compactMap(\.sample.lock?.layout)) ?? .unrecognized
        let api = Self.mostCommon(onWord.compactMap { LockAPI.of($0.frames) })
        var report = LockWaitReport(
            kind: LockAPI.kind(api: api, layout: layout), futexAddress: address, samples: onWord.count)
        if let reason = LockAPI.noOwnerReason(api: api, layout: layout) {
            report.noHolderReason = reason
            return report
        }
        if layout == .rwlockReaders {
            report.readers = onWord.compactMap(\.sample.lock?.readers).max()
            report.noHolderReason = "a read lock records no owner"
            return report
        }
        report.holder = holder(onWord, waiter: tid)
        if report.holder == nil {
            report.noHolderReason = Self.unnamedOwnerReason(onWord)
        }
        return report
    }

    /// The owner most samples recorded, with its sampled stacks.
    private func holder(_ samples: [ResolvedSample], waiter: Int32) -> LockHolderReport? {
        let owned = samples.filter { $0.sample.lock?.ownerIsThread == true }
        guard let owner = Self.mostCommon(owned.compactMap(\.sample.lock?.ownerTid)) else { return nil }
        let held = owned.filter { $0.sample.lock?.ownerTid == owner }
        let sampled = held.compactMap { sample -> ResolvedSample? in
            guard let holder = sample.sample.lock?.holder, holder.tid == owner else { return nil }
            let raw = StackSample(
                timestampNs: sample.sample.timestampNs, tid: holder.tid, addresses: holder.addresses,
                outcome: holder.outcome, pauseNs: holder.pauseNs, unwindNs: 0, state: holder.state)
            return ResolvedSample(sample: raw, frames: sample.holderFrames)
        }
        let name = held.compactMap { $0.sample.lock?.holder?.name }.first ?? ""
        let profile = profiler.profile(sampled)
        var report = LockHolderReport(
            tid: owner, name: name, samples: sampled.count, culprit: profile.culprit,
            stacks: Array(profile.stacks.prefix(maxHolderStacks)))
        if owner == waiter { report.isWaiter = true }
        return report
    }

    /// Why an owner the lock recorded is not named: it was no thread of the process.
    private static func unnamedOwnerReason(_ samples: [ResolvedSample]) -> String {
        let strangers = samples.compactMap { sample -> Int32? in
            guard let lock = sample.sample.lock, !lock.ownerIsThread else { return nil }
            return lock.ownerTid
        }
        if let stranger = mostCommon(strangers) {
            return "the lock names tid \(stranger), which is not a thread of this process"
        }
        return "the lock's memory records no owner lagmon recognises"
    }

    /// The line for the stall: `waiting 281ms for a mutex held by thread 4093 "worker" in
    /// holdAndSpin`; `durationNs` is the time the diagnosis gives the lock.
    public static func text(_ report: LockWaitReport, durationNs: UInt64) -> String {
        let duration = DurationText.format(nanoseconds: durationNs)
        let lock = article(report.kind) + " " + report.kind
        if let holder = report.holder {
            if holder.isWaiter == true {
                return "waiting \(duration) for \(lock) it holds itself (thread \(holder.tid): a self-deadlock)"
            }
            let name = holder.name.isEmpty ? "" : " \"\(holder.name)\""
            let place = holder.culprit.map { " in \($0.displayName)" } ?? ""
            return "waiting \(duration) for \(lock) held by thread \(holder.tid)\(name)\(place)"
        }
        if let readers = report.readers {
            return
                "waiting \(duration) for \(lock) held by \(readers) reader\(readers == 1 ? "" : "s") (no owner recorded)"
        }
        return "waiting \(duration) for \(lock) (\(report.noHolderReason ?? "no owner recorded"))"
    }

    private static func article(_ word: String) -> String {
        guard let first = word.first else { return "a" }
        return "aeiouAEIOU".contains(first) || word.hasPrefix("NS") ? "an" : "a"
    }

    /// The most frequent value (the smallest description on a tie, for determinism).
    static func mostCommon<T: Hashable>(_ values: [T]) -> T? {
        var counts: [T: Int] = [:]
        for value in values { counts[value, default: 0] += 1 }
        return counts.max { ($0.value, "\($1.key)") < ($1.value, "\($0.key)") }?.key
    }
}
