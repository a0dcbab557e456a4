import CLagmonLinux
import Glibc
import LagmonCore

extension SamplerWorker {
    /// What the phases before the stop found: the thread's /proc state read last before it, when,
    /// and what of the process may be read during it.
    struct BeforeStop {
        var state: ThreadStateSample?
        /// When the state was read (session clock, and CLOCK_MONOTONIC for the wait history).
        var readNs: UInt64
        var readAtMonotonicNs: UInt64
        /// Whether the process's memory may be read (no read of it is stuck).
        var readable: Bool
        var python: CPythonFrameReader?
        var jvm: HotSpotFrameReader?
        /// The pagemap, when the stack copy may be made on this thread (resident pages, no Python).
        var pages: ResidentPages?
    }

    /// What the stop copied: registers and stack top, the pause, and the Python frames read.
    struct Stopped {
        var copy: StackCopy
        var pauseNs: UInt64
        var rawPython: [CPythonFrameReader.RawFrame]
        var pythonNs: UInt64?
    }

    /// Takes one sample of thread `tid` of process `pid`, in phases: vet the thread, prepare
    /// (the period's map, the state read last), stop and copy, resume, unwind the copy, record.
    func sample(pid: Int32, tid: Int32, key: UInt64) -> StackSample? {
        let tracer: ThreadTracer
        switch vet(pid: pid, tid: tid, key: key) {
        case .refused(let stateOnly): return stateOnly
        case .admitted(let admitted): tracer = admitted
        }
        let before = prepare(pid: pid, tid: tid, key: key)
        if options.sparesWaitingThreads, spareWaiting(before.state, pid: pid, tid: tid, readNs: before.readNs) {
            return nil
        }
        guard seize(tracer, pid: pid, tid: tid) else { return nil }
        let pausedAt = clock()
        if let state = before.state {
            contention.noteReading(TimedThreadState(timestampNs: pausedAt, state: state), tid: tid, key: key)
        }
        let stopped: Stopped?
        do {
            stopped = try stopAndCopy(tracer, pid: pid, tid: tid, before: before)
        } catch {
            release(tid)
            stopWindows.close(keeping: threads.tracers)
            result.failures += 1
            // Read again: the one above is the baseline the stop's wait is measured against.
            return stateOnlySample(state: readState(tid), tid: tid, key: key)
        }
        resume(tracer)
        let resumedAt = clock()
        guard let stopped else {
            result.failures += 1
            return nil
        }
        return record(stopped, before: before, pid: pid, tid: tid, key: key, pausedAt: pausedAt, resumedAt: resumedAt)
    }

    /// Whether thread `tid` may be stopped, and its tracer; when not, what to return instead.
    private enum Vetting {
        case admitted(ThreadTracer)
        case refused(stateOnly: StackSample?)
    }

    /// Vets thread `tid` of process `pid` before anything is read of it: a thread of that
    /// process, a process lagmon may sample, and not still owed a stop it cannot take.
    private func vet(pid: Int32, tid: Int32, key: UInt64) -> Vetting {
        // The tid came from the channel: seize it only if it is a thread of the process the
        // session vouched for, never a stranger's.
        guard threads.tracers[tid] != nil || ProcFS.isThread(tid, of: pid) else {
            result.failures += 1
            return .refused(stateOnly: nil)
        }
        // Checked at every sample, not once: an exec can raise the privileges of the same pid.
        guard !refusesPrivileged(pid: pid) else {
            release(tid)
            return .refused(stateOnly: nil)
        }
        let tracer = threads.tracer(tid)
        if tracer.detaching, let state = readState(tid), !StackSampler.reachesOwedStop(state.state) {
            // Still owed a stop that did not come in time, and asleep where it cannot take it
            // (uninterruptible sleep stays so): its /proc state says where it is. A runnable
            // thread takes the stop it owes as soon as it has a CPU: the sample waits for that
            // (`ThreadTracer.whileStopped`).
            result.failures += 1
            return .refused(stateOnly: stateOnlySample(state: state, tid: tid, key: key))
        }
        return .admitted(tracer)
    }

    /// The period's map (read once), then the thread's state, read last before the stop so that
    /// a loop that went back to its wait meanwhile is seen there (the map's read takes
    /// milliseconds at first; a stop landing in that wait made the thread runnable, read as a
    /// busy period of lagmon's making).
    private func prepare(pid: Int32, tid: Int32, key: UInt64) -> BeforeStop {
        readMapOnce(pid: pid, tid: tid, key: key)
        let readNs = clock()
        let readAtMonotonicNs = MonotonicClock.nowNs()
        let state = readState(tid)
        let readable = memory.readable(pid: pid)
        let python = readable ? processes[pid]?.python : nil
        return BeforeStop(
            state: state, readNs: readNs, readAtMonotonicNs: readAtMonotonicNs, readable: readable, python: python,
            jvm: readable ? processes[pid]?.jvm : nil, pages: readable && python == nil ? residentPages(pid: pid) : nil)
    }

    /// Seizes thread `tid`; false (the failure counted, or sampling found unavailable) when
    /// ptrace refused.
    private func seize(_ tracer: ThreadTracer, pid: Int32, tid: Int32) -> Bool {
        do {
            try tracer.seize()
        } catch .notPermitted {
            result.unavailable = StackSampler.refusal(pid: pid, tid: tid)
            return false
        } catch {
            result.failures += 1
            return false
        }
        threads.seized(tracer)
        return true
    }

    /// The stop: registers and the top of the stack copied while the thread is stopped, bounded
    /// (`ThreadTracer.whileStopped`); nil when the registers could not be read. Memory reads go
    /// to the memory worker, bounded: a page nobody will ever fault in (userfaultfd, a stuck
    /// FUSE file) must not keep the thread stopped. A copy of resident pages cannot wait for a
    /// fault and is made here (no hand-over). Nothing in the stop allocates but the copy itself.
    private func stopAndCopy(
        _ tracer: ThreadTracer, pid: Int32, tid: Int32, before: BeforeStop
    ) throws(ThreadTracer.Failure) -> Stopped? {
        let readable = before.readable
        let python = before.python
        var rawPython: [CPythonFrameReader.RawFrame] = []
        var pythonNs: UInt64?
        stopWindows.open(tid: tid)
        var history = threads.waitHistory(tid)
        if before.state?.state == .running { history.noteAwake(at: before.readAtMonotonicNs) }
        defer { threads.keep(history, of: tid) }
        let (copied, pauseNs) = try tracer.whileStopped(
            poll: StackSampler.pollsForStop(lastCPU: before.state?.lastCPU), history: &history,
            readMemory: readable ? programMemoryReader(pid: pid, tid: tid) : nil
        ) { () -> StackCopy? in
            guard var copy = stopRegisters(tid: tid) else { return nil }
            if let pages = before.pages, pages.areResident(copy.start, length: copy.length) {
                copy.bytes = Self.readStopped(copy, tid: tid, nil).bytes
                return copy
            }
            guard readable, let read = readWhileStopped(copy, pid: pid, tid: tid, python: python) else {
                copy.memoryUnreadable = true
                return copy
            }
            copy.bytes = read.bytes
            rawPython = read.python
            pythonNs = python != nil ? read.pythonNs : nil
            return copy
        }
        return copied.map { Stopped(copy: $0, pauseNs: pauseNs, rawPython: rawPython, pythonNs: pythonNs) }
    }

    /// After the stop: detached at the end of the pause (`ThreadTracer.whileStopped`), so
    /// nothing is left to let go later; the thread's stop window closes.
    private func resume(_ tracer: ThreadTracer) {
        stopWindows.close(keeping: threads.tracers)
        threads.forgetIfDetached(tracer)
    }

    /// The sample of what the stop copied: the stop's reading told to `onStopped`, the copy
    /// unwound (after the pause, on the memory worker, its interpreted Java frames named), the
    /// perf map refreshed for JIT frames, and the lock the thread waits on observed.
    private func record(
        _ stopped: Stopped, before: BeforeStop, pid: Int32, tid: Int32, key: UInt64, pausedAt: UInt64,
        resumedAt: UInt64
    ) -> StackSample {
        let copied = stopped.copy
        let state = before.state
        // A wait call that had returned, or that the thread was runnable in, is no wait any more.
        let stoppedState = ProcLoopReading.state(
            atStopIn: copied.registers.syscallNumber, waitChannelBefore: state?.wchan,
            callFinished: copied.registers.syscallFinished, schedulerStateBefore: state?.state)
        options.onStopped?(pid, tid, pausedAt, copied.stoppedNs, stoppedState)
        let after =
            copied.memoryUnreadable
            ? nil
            : unwindAfterPause(
                copied, pid: pid, map: stackMappings[tid], python: before.python, stopped.rawPython, jvm: before.jvm)
        let addresses = after?.addresses ?? [copied.registers.instructionPointer]
        let unwound = after?.outcome ?? .failed
        let outcome =
            stackMappings[tid].map { StackPlausibility.outcome(unwound, addresses: addresses, map: $0) } ?? unwound
        var sample = StackSample(
            timestampNs: pausedAt, tid: tid, addresses: addresses, outcome: outcome, pauseNs: stopped.pauseNs,
            unwindNs: 0, state: state)
        sample.memoryUnreadable = after == nil
        sample.asyncCallers = after?.asyncCallers ?? []
        sample.asyncCallerIndex = after?.asyncCallerIndex
        sample.interpreterFrames = after?.interpreterFrames ?? []
        sample.interpreterReadNs = stopped.pythonNs
        sample.interpretedJava = after?.interpretedJava ?? []
        sample.syscallAtStop = copied.registers.syscallNumber
        sample.unwindNs = clock() - resumedAt
        refreshPerfMap(pid: pid, key: key, addresses: addresses, map: stackMappings[tid])
        // After the waiter resumed: its pause does not grow by the holder's.
        sample.lock = observeLock(pid: pid, tid: tid, state: state)
        return sample
    }

    /// With `sparesWaitingThreads`: whether thread `tid`, in `state` read from /proc at
    /// `readNs`, sleeps in its loop's wait (`ProcLoopReading.isAsleepInWait`). Its busy period
    /// is over (the request came late), so it is not stopped: a stop would break its wait, leave
    /// it runnable until it restarted the call, and the /proc probe would read that as the loop
    /// awake (a busy period lagmon made). The reading goes to `onStopped` as one of the loop's.
    private func spareWaiting(_ state: ThreadStateSample?, pid: Int32, tid: Int32, readNs: UInt64) -> Bool {
        guard let state, ProcLoopReading.isAsleepInWait(state) else { return false }
        options.onStopped?(pid, tid, readNs, clock(), .waiting)
        return true
    }

    /// A sample of only the /proc state of a thread that could not be stopped, when that state
    /// says why: uninterruptible sleep (`D`: no signal, and no ptrace stop, reaches it until it
    /// wakes) or runnable (`R`: starved of a CPU, it cannot get to its stop); nil otherwise.
    private func stateOnlySample(state: ThreadStateSample?, tid: Int32, key: UInt64) -> StackSample? {
        guard let state else { return nil }
        let reading = TimedThreadState(timestampNs: clock(), state: state)
        let before = contention.noteReading(reading, tid: tid, key: key)
        guard
            state.state == .diskSleep
                || (state.state == .running && StackSampler.waitedForCPU(reading, since: before))
        else { return nil }
        var sample = StackSample(
            timestampNs: reading.timestampNs, tid: tid, addresses: [], outcome: .failed, pauseNs: 0, unwindNs: 0,
            state: state)
        sample.isStateOnly = true
        return sample
    }
}
