import CLagmonLinux
import CLagmonUnwind
import Glibc
import LagmonCore
import LagmonSymbols

extension StackSampler {
    /// Takes one sample of thread `tid` of process `pid`: /proc state, a brief stop to copy
    /// registers and stack, then the unwind from the copy.
    func sample(pid: Int32, tid: Int32, key: UInt64) -> StackSample? {
        // The tid came from the channel: seize it only if it is a thread of the process the
        // session vouched for, never a stranger's.
        guard tracers[tid] != nil || ProcFS.isThread(tid, of: pid) else {
            result.failures += 1
            return nil
        }
        // Checked at every sample, not once: an exec can raise the privileges of the same pid.
        guard !refusesPrivileged(pid: pid) else {
            release(tid)
            return nil
        }
        let tracer = tracers[tid] ?? ThreadTracer(tid: tid)
        if tracer.detaching, let state = readState(tid), !Self.reachesOwedStop(state.state) {
            // Still owed a stop that did not come in time, and asleep where it cannot take it
            // (uninterruptible sleep stays so): its /proc state says where it is. A runnable
            // thread takes the stop it owes as soon as it has a CPU: the sample waits for that
            // (`ThreadTracer.whileStopped`).
            result.failures += 1
            return stateOnlySample(state: state, tid: tid, key: key)
        }
        readMapOnce(pid: pid, tid: tid, key: key)
        // Read last before the stop, so that a loop that went back to its wait meanwhile is seen
        // there (the map's read above takes milliseconds at first; a stop landing in that wait
        // made the thread runnable, read as a busy period of lagmon's making).
        let readNs = clock()
        let stateReadAtNs = MonotonicClock.nowNs()
        let state = readState(tid)
        if sparesWaitingThreads, spareWaiting(state, pid: pid, tid: tid, readNs: readNs) { return nil }
        do {
            try tracer.seize()
        } catch .notPermitted {
            result.unavailable = Self.refusal(pid: pid, tid: tid)
            return nil
        } catch {
            result.failures += 1
            return nil
        }
        tracers[tid] = tracer
        seizedThreads.insert(tid)
        let pausedAt = clock()
        if let state { noteReading(TimedThreadState(timestampNs: pausedAt, state: state), tid: tid, key: key) }
        let copied: StackCopy?
        let pauseNs: UInt64
        let readable = memoryReadable(pid: pid)
        let python = readable ? pythonReaders[pid] : nil
        var rawPython: [CPythonFrameReader.RawFrame] = []
        var pythonNs: UInt64?
        openStopWindow(tid: tid)
        do {
            var history = waitHistories[tid] ?? WaitHistory()
            if state?.state == .running { history.noteAwake(at: stateReadAtNs) }
            defer { waitHistories[tid] = history }
            (copied, pauseNs) = try tracer.whileStopped(
                poll: Self.pollsForStop(lastCPU: state?.lastCPU), history: &history,
                readMemory: readable ? programMemoryReader(pid: pid, tid: tid) : nil
            ) { () -> StackCopy? in
                guard var copy = stopRegisters(tid: tid) else { return nil }
                // Memory reads go to the memory worker, bounded: a page nobody will ever fault
                // in (userfaultfd, a stuck FUSE file) must not keep the thread stopped. A copy of
                // resident pages cannot wait for a fault and is made here (no hand-over).
                if readable, python == nil,
                    residentPages(pid: pid)?.areResident(copy.start, length: copy.length) == true
                {
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
        } catch {
            release(tid)
            closeStopWindows()
            result.failures += 1
            // Read again: the one above is the baseline the stop's wait is measured against.
            return stateOnlySample(state: readState(tid), tid: tid, key: key)
        }
        // Detached at the end of the pause (ThreadTracer.whileStopped): nothing to let go later.
        closeStopWindows()
        if !tracer.attached { tracers.removeValue(forKey: tid) }
        let resumedAt = clock()
        guard let copied else {
            result.failures += 1
            return nil
        }
        // A wait call that had returned, or that the thread was runnable in, is no wait any more.
        let stoppedState = ProcLoopReading.state(
            atStopIn: copied.registers.syscallNumber, waitChannelBefore: state?.wchan,
            callFinished: copied.registers.syscallFinished, schedulerStateBefore: state?.state)
        onStopped?(pid, tid, pausedAt, copied.stoppedNs, stoppedState)
        let after =
            copied.memoryUnreadable
            ? nil : unwindAfterPause(copied, pid: pid, map: stackMappings[tid], python: python, rawPython)
        let addresses = after?.addresses ?? [copied.registers.instructionPointer]
        let unwound = after?.outcome ?? .failed
        let outcome =
            stackMappings[tid].map { StackPlausibility.outcome(unwound, addresses: addresses, map: $0) } ?? unwound
        var sample = StackSample(
            timestampNs: pausedAt, tid: tid, addresses: addresses, outcome: outcome, pauseNs: pauseNs,
            unwindNs: 0, state: state)
        sample.memoryUnreadable = after == nil
        sample.asyncCallers = after?.asyncCallers ?? []
        sample.asyncCallerIndex = after?.asyncCallerIndex
        sample.interpreterFrames = after?.interpreterFrames ?? []
        sample.interpreterReadNs = pythonNs
        sample.syscallAtStop = copied.registers.syscallNumber
        sample.unwindNs = clock() - resumedAt
        refreshPerfMap(pid: pid, addresses: addresses, map: stackMappings[tid])
        // After the waiter resumed: its pause does not grow by the holder's.
        sample.lock = observeLock(pid: pid, tid: tid, state: state)
        return sample
    }

    /// Whether to poll for a requested stop before sleeping: not when the thread last ran on (or
    /// waits for) the sampler's own CPU, where it can only stop once the sampler sleeps and
    /// polling only delays it; where it runs on another CPU a poll catches the stop without the
    /// wake-up of a sleeping sampler (docs/benchmarks.md, "The poll only across CPUs").
    static func pollsForStop(lastCPU: Int32?, samplerCPU: Int32 = lagmon_sched_getcpu()) -> Bool {
        guard let lastCPU else { return true }
        return lastCPU != samplerCPU
    }

    /// Whether a thread in scheduler state `state`, owed a stop, reaches it without lagmon's
    /// help: runnable (it stops once it has a CPU) or already in it.
    static func reachesOwedStop(_ state: SchedulerState) -> Bool {
        state == .running || state == .tracingStop
    }

    /// The memory map of process `pid` for busy period `key`, read once per period, outside the
    /// pause; its images are kept to symbolize after the target may have exited.
    private func readMapOnce(pid: Int32, tid: Int32, key: UInt64) {
        guard result.maps[key] == nil, let map = ProcessMemoryMap.read(pid: pid) else { return }
        result.maps[key] = images(pid: pid, map: map)
        result.pids[key] = pid
        stackMappings[tid] = map
        // Pages outside the stack are cached across samples; a new busy period reads them anew.
        if let unwinder = unwinders[pid] { lagmon_unwinder_forget_pages(unwinder) }
        probeInterpreter(pid: pid, map: map)
    }

    /// With `sparesWaitingThreads`: whether thread `tid`, in `state` read from /proc at
    /// `readNs`, sleeps in its loop's wait (`ProcLoopReading.isAsleepInWait`). Its busy period
    /// is over (the request came late), so it is not stopped: a stop would break its wait, leave
    /// it runnable until it restarted the call, and the /proc probe would read that as the loop
    /// awake (a busy period lagmon made). The reading goes to `onStopped` as one of the loop's.
    private func spareWaiting(_ state: ThreadStateSample?, pid: Int32, tid: Int32, readNs: UInt64) -> Bool {
        guard let state, ProcLoopReading.isAsleepInWait(state) else { return false }
        onStopped?(pid, tid, readNs, clock(), .waiting)
        return true
    }

    /// A sample of only the /proc state of a thread that could not be stopped, when that state
    /// says why: uninterruptible sleep (`D`: no signal, and no ptrace stop, reaches it until it
    /// wakes) or runnable (`R`: starved of a CPU, it cannot get to its stop); nil otherwise.
    private func stateOnlySample(state: ThreadStateSample?, tid: Int32, key: UInt64) -> StackSample? {
        guard let state else { return nil }
        let reading = TimedThreadState(timestampNs: clock(), state: state)
        let before = noteReading(reading, tid: tid, key: key)
        guard state.state == .diskSleep || (state.state == .running && Self.waitedForCPU(reading, since: before))
        else { return nil }
        var sample = StackSample(
            timestampNs: reading.timestampNs, tid: tid, addresses: [], outcome: .failed, pauseNs: 0, unwindNs: 0,
            state: state)
        sample.isStateOnly = true
        return sample
    }

    /// Whether a runnable thread that did not get to its stop waited for a CPU since reading
    /// `before`: its run-queue delay grew, or its CPU time grew by less than half the time
    /// between the readings. schedstat counts a wait only when the thread gets a CPU again, so
    /// a thread still waiting shows counters that stood still; one whose CPU time kept up was
    /// running, and an `R` of it says nothing true about the stall.
    static func waitedForCPU(_ reading: TimedThreadState, since before: TimedThreadState?) -> Bool {
        guard let before, reading.timestampNs > before.timestampNs else { return false }
        if reading.state.runDelayNs > before.state.runDelayNs { return true }
        let ranNs = reading.state.onCPUNs > before.state.onCPUNs ? reading.state.onCPUNs - before.state.onCPUNs : 0
        return ranNs < (reading.timestampNs - before.timestampNs) / 2
    }

    /// Keeps `reading` as thread `tid`'s latest (the baseline of its next state-only sample) and,
    /// when busy period `key` has none yet, as the period's opening state; returns the previous
    /// latest.
    @discardableResult
    func noteReading(_ reading: TimedThreadState, tid: Int32, key: UInt64) -> TimedThreadState? {
        if openingStates[key] == nil { openingStates[key] = reading }
        return lastReadStates.updateValue(reading, forKey: tid)
    }

    /// Reads what the process appended to its perf map when the sample holds an address in no
    /// mapped file (JIT code): after the pause, so the map names code compiled up to now.
    private func refreshPerfMap(pid: Int32, addresses: [UInt64], map: ProcessMemoryMap?) {
        let jitted = addresses.contains { address in
            guard let module = map?.module(containing: address) else { return true }
            return !module.mapping.isFile && module.name != "[vdso]"
        }
        guard jitted else { return }
        let file = perfMapFiles[pid] ?? PerfMapFile(files: unwindImages.fileSystem(pid: pid))
        perfMapFiles[pid] = file
        if !file.refresh(), let problem = file.problem { unwindImages.note(problem) }
    }

    /// Reads process `pid`'s map, unwind tables and interpreter ahead of its first sample.
    func prepare(pid: Int32) {
        guard !refusesPrivileged(pid: pid), let map = ProcessMemoryMap.read(pid: pid) else { return }
        _ = images(pid: pid, map: map)
        probeInterpreter(pid: pid, map: map)
    }

    /// Whether process `pid` is one the target's own user could not trace (a setuid exec, raised
    /// ids or capabilities): then it is not sampled nor read, whatever the channel or a CPU alert
    /// says, and the report says why.
    func refusesPrivileged(pid: Int32) -> Bool {
        guard let refusal = ProcFS.samplingRefusal(pid: pid) else { return false }
        result.privilegeRefusals[pid] = refusal
        return true
    }

    /// The images of `map`, the unwinder told of them when they changed. Unchanged images share
    /// one copy: a run of 10,000 stalls holds as many copies as the process loaded new
    /// libraries, not 10,000.
    private func images(pid: Int32, map: ProcessMemoryMap) -> ProcessMemoryMap {
        var images = map.images
        if let previous = imageMaps[pid], previous == images {
            images = previous
        } else {
            updateRegions(pid: pid, images: images)
        }
        imageMaps[pid] = images
        return images
    }

    /// Looks once per process for an interpreter whose frames lagmon reads (CPython 3.9+); its
    /// runtime is read from the process's memory, bounded like every read of it.
    private func probeInterpreter(pid: Int32, map: ProcessMemoryMap) {
        guard interpreterProbed.insert(pid).inserted else { return }
        let files = unwindImages.fileSystem(pid: pid)
        let found = boundedRead(pid: pid) { () -> (CPythonRuntime?, [TargetFileProblem]) in
            var problems: [TargetFileProblem] = []
            let runtime = CPythonRuntime.find(files: files, map: map) { problems.append($0) }
            return (runtime, problems)
        }
        found?.1.forEach(unwindImages.note)
        guard let runtime = found?.0 else { return }
        pythonReaders[pid] = CPythonFrameReader(pid: pid, runtime: runtime)
    }

    /// Why ptrace was refused: another tracer holds the thread (strace, gdb: only one tracer at
    /// a time, whoever lagmon runs as), or lagmon lacks the privilege.
    static func refusal(pid: Int32, tid: Int32) -> String {
        let status = String(decoding: ProcFS.readFile("/proc/\(pid)/task/\(tid)/status") ?? [], as: UTF8.self)
        let tracer = status.split(separator: "\n").first { $0.hasPrefix("TracerPid:") }
            .flatMap { Int32($0.dropFirst("TracerPid:".count).filter { !$0.isWhitespace }) }
        guard let tracer, tracer != 0, tracer != getpid() else { return permissionAdvice }
        let name = ProcFS.readFile("/proc/\(tracer)/comm").map {
            QuotedText.printable(String(decoding: $0, as: UTF8.self).filter { $0 != "\n" }, limit: 32)
        }
        return
            "ptrace was refused (EPERM): thread \(tid) is already traced by pid \(tracer)\(name.map { " (\($0))" } ?? ""), and a thread has one tracer at a time, so stalls have no stacks; detach that tracer (end strace or gdb) and run lagmon again; stall detection is unaffected"
    }

    static let permissionAdvice =
        "ptrace was refused (EPERM), so stalls have no stacks: run lagmon as root or with CAP_SYS_PTRACE (docker run --cap-add SYS_PTRACE), or as the target's user with /proc/sys/kernel/yama/ptrace_scope at 0 or 1 (non-dumpable targets need CAP_SYS_PTRACE); stall detection is unaffected"

    /// Registers and the top of the stack of the stopped thread.
    struct StackCopy {
        var registers: user_regs_struct
        /// When the registers were read (session clock): the thread was stopped by then.
        var stoppedNs: UInt64
        var start: UInt64
        var length: Int
        /// The stack mapping, read live beyond the copy.
        var live: (start: UInt64, end: UInt64)
        /// The bytes copied from `start` (`length` were asked for; fewer may have come).
        var bytes: [UInt8] = []
        /// Set when the process's memory could not be read in time (or a read of it is still
        /// under way): only the registers are known.
        var memoryUnreadable = false
    }

    /// What the memory worker read while the thread was stopped.
    struct StoppedRead {
        var bytes: [UInt8]
        var python: [CPythonFrameReader.RawFrame]
        var pythonNs: UInt64
    }

    /// Each unwound frame's frame pointer and stack pointer registers, innermost first.
    struct FramePointers {
        var frame: [UInt64] = []
        var stack: [UInt64] = []
    }

    /// What the memory worker read after the pause.
    struct UnwoundStack {
        var addresses: [UInt64]
        var outcome: UnwindOutcome
        var interpreterFrames: [InterpreterFrame]
        /// The Swift async callers of frame `asyncCallerIndex` (`AsyncCallerChain`).
        var asyncCallers: [UInt64] = []
        var asyncCallerIndex: Int?
    }

    /// The stack copy and Python frames of stopped thread `tid`, read on the memory worker; nil
    /// when that overran its bound.
    func readWhileStopped(_ copy: StackCopy, pid: Int32, tid: Int32, python: CPythonFrameReader?)
        -> StoppedRead?
    {
        boundedRead(pid: pid) { () -> StoppedRead in Self.readStopped(copy, tid: tid, python) }
    }

    /// The unwind of `copied`, the names of its Python frames and the Swift async callers of its
    /// async frame (with `map`, the process's), on the memory worker (all read the live process);
    /// nil when that overran its bound.
    func unwindAfterPause(
        _ copied: StackCopy, pid: Int32, map: ProcessMemoryMap?, python: CPythonFrameReader?,
        _ rawPython: [CPythonFrameReader.RawFrame]
    ) -> UnwoundStack? {
        let unwinder = unwinder(pid: pid)
        return boundedRead(pid: pid) { () -> UnwoundStack in
            let (addresses, framePointers, outcome) = Self.unwind(copied, unwinder: unwinder)
            var unwound = UnwoundStack(
                addresses: addresses, outcome: outcome, interpreterFrames: python?.resolve(rawPython) ?? [])
            if let map, let chain = Self.asyncCallers(pid: pid, addresses, framePointers, map: map) {
                (unwound.asyncCallerIndex, unwound.asyncCallers) = chain
            }
            return unwound
        }
    }

    /// The async callers of the stack's Swift async frame, its context chain read from process
    /// `pid`'s memory a word at a time (on the memory worker).
    private static func asyncCallers(
        pid: Int32, _ addresses: [UInt64], _ pointers: FramePointers, map: ProcessMemoryMap
    ) -> (index: Int, callers: [UInt64])? {
        AsyncCallerChain.callers(
            addresses: addresses, framePointers: pointers.frame, stackPointers: pointers.stack, map: map
        ) { address in
            var word: UInt64 = 0
            let read = withUnsafeMutableBytes(of: &word) { lagmon_read_memory(pid_t(pid), address, $0.baseAddress, 8) }
            return read == 8 ? word : nil
        }
    }

    /// Copies the top of the stack and reads the Python frames of stopped thread `tid` (on the
    /// memory worker: touches only what it is given).
    private static func readStopped(_ copy: StackCopy, tid: Int32, _ python: CPythonFrameReader?) -> StoppedRead {
        var bytes = [UInt8](repeating: 0, count: copy.length)
        let read = bytes.withUnsafeMutableBytes { buffer in
            lagmon_read_memory(pid_t(tid), copy.start, buffer.baseAddress, buffer.count)
        }
        bytes.removeLast(copy.length - max(0, read))
        let started = MonotonicClock.nowNs()
        let frames = python?.readFrames(tid: tid, fsBase: copy.registers.fs_base) ?? []
        return StoppedRead(bytes: bytes, python: frames, pythonNs: MonotonicClock.nowNs() - started)
    }

    /// The registers of the stopped thread and the stack range to copy. Runs while the thread is
    /// stopped: keep it short.
    func stopRegisters(tid: Int32) -> StackCopy? {
        guard let registers = tracers[tid]?.registers() else { return nil }
        let stoppedNs = clock()
        // From the red zone below the stack pointer (bytes leaf functions may use) to the end
        // of the stack pointer's page, and at least `stackWindowBytes` past the stack pointer: the
        // frames that change once the thread runs (for most loops, the whole stack). Frames
        // further out are read live after it resumed; they stay put while it is stuck deeper.
        // Every page copied here costs pause time (process_vm_readv pins it).
        let start = registers.stackPointer &- user_regs_struct.redZoneBytes
        var end = max((registers.stackPointer | 0xFFF) + 1, registers.stackPointer + UInt64(Self.stackWindowBytes))
        var live: (UInt64, UInt64) = (0, 0)
        if let mapping = stackMappings[tid]?.mapping(containing: registers.stackPointer) {
            end = min(end, mapping.end)
            live = (mapping.start, mapping.end)
        }
        let wanted = min(Int(end - start), Self.stackCopyBytes)
        return StackCopy(registers: registers, stoppedNs: stoppedNs, start: start, length: wanted, live: live)
    }

    /// Red zone, the rest of the stack pointer's page, and the window.
    static let stackCopyBytes = 128 + 4096 + StackSampler.stackWindowBytes

    /// Hands the unwinder the unwind tables of `images` (a new set: a library was loaded or
    /// unloaded). Runs outside the pause; opens only regular files, without blocking.
    private func updateRegions(pid: Int32, images: ProcessMemoryMap) {
        guard let unwinder = unwinder(pid: pid) else { return }
        let regions = unwindImages.regions(pid: pid, map: images)
        _ = regions.withUnsafeBufferPointer {
            lagmon_unwinder_set_regions(unwinder, $0.baseAddress, Int32(regions.count))
        }
    }

    private func residentPages(pid: Int32) -> ResidentPages? {
        if let known = residentPages[pid] { return known }
        let pages = ResidentPages(pid: pid)
        residentPages[pid] = pages
        return pages
    }

    private func unwinder(pid: Int32) -> OpaquePointer? {
        if unwinders[pid] == nil { unwinders[pid] = lagmon_unwinder_create(pid) }
        return unwinders[pid]
    }

    /// Unwinds a copy (on the memory worker: libunwind reads the live process); returns
    /// addresses innermost first, each frame's frame and stack pointers, and how the unwind ended.
    private static func unwind(
        _ copied: StackCopy, unwinder: OpaquePointer?
    ) -> ([UInt64], FramePointers, UnwindOutcome) {
        guard let unwinder else { return ([copied.registers.instructionPointer], FramePointers(), .failed) }
        var outcome = LAGMON_UNWIND_FAILED
        var ips = [UInt64](repeating: 0, count: maxFrames)
        var fps = [UInt64](repeating: 0, count: maxFrames)
        var sps = [UInt64](repeating: 0, count: maxFrames)
        let count = copied.bytes.withUnsafeBytes { stack in
            ips.withUnsafeMutableBufferPointer { ips in
                fps.withUnsafeMutableBufferPointer { fps in
                    sps.withUnsafeMutableBufferPointer { sps in
                        var copy = lagmon_stack_copy(
                            regs: copied.registers, stack_start: copied.start,
                            stack_length: UInt64(copied.bytes.count),
                            bytes: stack.baseAddress?.assumingMemoryBound(to: UInt8.self),
                            live_stack_start: copied.live.start, live_stack_end: copied.live.end)
                        return lagmon_unwind(
                            unwinder, &copy, ips.baseAddress, fps.baseAddress, sps.baseAddress, Int32(ips.count),
                            &outcome)
                    }
                }
            }
        }
        let addresses = count > 0 ? Array(ips[0..<Int(count)]) : [copied.registers.instructionPointer]
        let pointers = FramePointers(
            frame: count > 0 ? Array(fps[0..<Int(count)]) : [], stack: count > 0 ? Array(sps[0..<Int(count)]) : [])
        switch outcome {
        case LAGMON_UNWIND_COMPLETE: return (addresses, pointers, .complete)
        case LAGMON_UNWIND_TRUNCATED: return (addresses, pointers, .truncated)
        default: return (addresses, pointers, .failed)
        }
    }
}
