import CLagmonLinux
import Glibc
import LagmonCore

extension SamplerWorker {
    /// The lock thread `tid` of process `pid` waits on, when its /proc state has it in a futex
    /// wait: the memory around the futex word (a bounded read on the memory worker, decoded
    /// by `FutexLockDecoder`), the owner it records and, when that owner is another thread of
    /// the same process (checked in /proc before it is ever traced), the owner's stack.
    func observeLock(pid: Int32, tid: Int32, state: ThreadStateSample?) -> LockObservation? {
        guard let syscall = state?.syscall, let (address, wait) = FutexLockDecoder.wait(syscall) else { return nil }
        let beforeCount = FutexLockDecoder.bytesBefore
        let before =
            address >= UInt64(beforeCount)
            ? readMemory(pid: pid, tid: tid, address: address - UInt64(beforeCount), count: beforeCount) : []
        let after = readMemory(pid: pid, tid: tid, address: address, count: FutexLockDecoder.bytesAfter)
        // The word before it is read whole or not at all: a prefix would shift every offset.
        let decoded = FutexLockDecoder.decode(wait, before: before.count == beforeCount ? before : [], after: after)
        var observation = LockObservation(
            futexAddress: address, layout: decoded.layout, ownerTid: decoded.ownerTid, readers: decoded.readers)
        guard let owner = decoded.ownerTid, ProcFS.isThread(owner, of: pid) else { return observation }
        observation.ownerIsThread = true
        // A thread waiting on a lock it holds itself (a self-deadlock) is already stopped for.
        if owner != tid { observation.holder = sampleHolder(pid: pid, tid: owner, waiter: tid) }
        return observation
    }

    /// One sample of the lock holder `tid`: seized, stopped just long enough to copy its
    /// registers and stack top (bounded like every stop) and detached at the end of that pause
    /// (`ThreadTracer.whileStopped`); one that would not stop in time is let go like any other.
    /// Nil when it could not be sampled.
    private func sampleHolder(pid: Int32, tid: Int32, waiter: Int32) -> LockHolderSample? {
        let tracer = threads.tracer(tid)
        guard !tracer.detaching, (try? tracer.seize()) != nil else { return nil }
        // A holder that exits while traced is a zombie only this thread can reap: the sweep
        // (`reapTracedZombies`) looks at every thread seized, holders too. (A loaded run hung on
        // one: the Swift lock fixture exited, its holder thread a zombie traced by the sampler.)
        threads.seized(tracer)
        stopWindows.open(tid: tid)
        // A holder that is itself a stalled loop keeps the map its own samples read.
        let ownMapping = stackMappings[tid] != nil
        if !ownMapping { stackMappings[tid] = stackMappings[waiter] }
        defer {
            tracer.detach()
            stopWindows.close(keeping: threads.tracers)
            threads.forgetIfDetached(tracer)
            if !ownMapping { stackMappings.removeValue(forKey: tid) }
        }
        let name = ProcFS.taskStat(pid: pid, tid: tid)?.comm ?? ""
        let stateReadAtNs = MonotonicClock.nowNs()
        let state = ProcFS.threadState(pid: pid, tid: tid)
        // The same bounded path as every sample: memory reads on the memory worker.
        var history = threads.waitHistory(tid)
        if state?.state == .running { history.noteAwake(at: stateReadAtNs) }
        defer { threads.keep(history, of: tid) }
        let stopped = try? tracer.whileStopped(history: &history, readMemory: programMemoryReader(pid: pid, tid: tid)) {
            () -> StackCopy? in
            guard var copy = stopRegisters(tid: tid),
                let read = readWhileStopped(copy, pid: pid, tid: tid, python: nil)
            else { return nil }
            copy.bytes = read.bytes
            return copy
        }
        guard let stopped, let copied = stopped.0,
            let after = unwindAfterPause(copied, pid: pid, map: nil, python: nil, [], jvm: nil)
        else { return nil }
        let outcome =
            stackMappings[tid].map { StackPlausibility.outcome(after.outcome, addresses: after.addresses, map: $0) }
            ?? after.outcome
        return LockHolderSample(
            tid: tid, name: name, addresses: after.addresses, outcome: outcome, pauseNs: stopped.pauseNs, state: state)
    }

    /// A reader of process `pid`'s memory for `ThreadTracer.whileStopped` (`readMemory`).
    func programMemoryReader(pid: Int32, tid: Int32) -> (UInt64, Int) -> [UInt8] {
        { [unowned self] address, count in readMemory(pid: pid, tid: tid, address: address, count: count) }
    }

    /// Up to `count` bytes of the process's memory at `address` (fewer where it stops being
    /// readable), read on the memory worker within its bound; empty when none can be read.
    private func readMemory(pid: Int32, tid: Int32, address: UInt64, count: Int) -> [UInt8] {
        memory.bounded(pid: pid) { () -> [UInt8] in
            [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                let read = lagmon_read_memory(pid_t(tid), address, buffer.baseAddress, count)
                initialized = read > 0 ? min(Int(read), count) : 0
            }
        } ?? []
    }
}
