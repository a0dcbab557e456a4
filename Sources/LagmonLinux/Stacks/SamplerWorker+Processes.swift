import CLagmonUnwind
import LagmonCore
import LagmonSymbols

extension SamplerWorker {
    /// The memory map of process `pid` for busy period `key`, read once per period, outside the
    /// pause; its images are kept to symbolize after the target may have exited.
    func readMapOnce(pid: Int32, tid: Int32, key: UInt64) {
        guard result.maps[key] == nil, let map = ProcessMemoryMap.read(pid: pid) else { return }
        result.maps[key] = images(pid: pid, map: map)
        result.pids[key] = pid
        stackMappings[tid] = map
        // Pages outside the stack are cached across samples; a new busy period reads them anew.
        if let unwinder = processes[pid]?.unwinder { lagmon_unwinder_forget_pages(unwinder) }
        probeInterpreter(pid: pid, map: map)
        probeJVM(pid: pid, map: map)
    }

    /// Reads process `pid`'s map, unwind tables and interpreter ahead of its first sample.
    func prepare(pid: Int32) {
        guard !refusesPrivileged(pid: pid), let map = ProcessMemoryMap.read(pid: pid) else { return }
        _ = images(pid: pid, map: map)
        probeInterpreter(pid: pid, map: map)
        probeJVM(pid: pid, map: map)
    }

    /// Whether process `pid` is one the target's own user could not trace (a setuid exec, raised
    /// ids or capabilities): then it is not sampled nor read, whatever the channel or a CPU alert
    /// says, and the report says why.
    func refusesPrivileged(pid: Int32) -> Bool {
        guard let refusal = ProcFS.samplingRefusal(pid: pid) else { return false }
        result.privilegeRefusals[pid] = refusal
        return true
    }

    /// Process `pid`'s unwinder, made at the first call.
    func unwinder(pid: Int32) -> OpaquePointer? { processes[pid, default: SampledProcess()].unwinder(pid: pid) }

    /// Process `pid`'s pagemap reader, opened at the first call.
    func residentPages(pid: Int32) -> ResidentPages? {
        processes[pid, default: SampledProcess()].residentPages(pid: pid)
    }

    /// Reads what the process appended to its perf map when the sample holds an address in no
    /// mapped file (JIT code): after the pause, so the map names code compiled up to now.
    func refreshPerfMap(pid: Int32, key: UInt64, addresses: [UInt64], map: ProcessMemoryMap?) {
        let jitted = addresses.contains { address in
            guard let module = map?.module(containing: address) else { return true }
            return !module.mapping.isFile && module.name != "[vdso]"
        }
        guard jitted else { return }
        let file = processes[pid]?.perfMap ?? PerfMapFile(files: unwindImages.fileSystem(pid: pid))
        processes[pid, default: SampledProcess()].perfMap = file
        if !file.refresh(), let problem = file.problem { unwindImages.note(problem) }
        if let map, JVMAttach.isJVM(map) { requestJVMPerfMap(pid: pid, key: key, addresses: addresses, map: map) }
    }

    /// The images of `map`, the unwinder told of them when they changed. Unchanged images share
    /// one copy: a run of 10,000 stalls holds as many copies as the process loaded new
    /// libraries, not 10,000.
    private func images(pid: Int32, map: ProcessMemoryMap) -> ProcessMemoryMap {
        var images = map.images
        if let previous = processes[pid]?.images, previous == images {
            images = previous
        } else {
            updateRegions(pid: pid, images: images)
        }
        processes[pid, default: SampledProcess()].images = images
        return images
    }

    /// Looks once per process for an interpreter whose frames lagmon reads (CPython 3.9+); its
    /// runtime is read from the process's memory, bounded like every read of it.
    private func probeInterpreter(pid: Int32, map: ProcessMemoryMap) {
        guard processes[pid]?.interpreterProbed != true else { return }
        processes[pid, default: SampledProcess()].interpreterProbed = true
        let files = unwindImages.fileSystem(pid: pid)
        let found = memory.bounded(pid: pid) { () -> (CPythonRuntime?, [TargetFileProblem]) in
            var problems: [TargetFileProblem] = []
            let runtime = CPythonRuntime.find(files: files, map: map) { problems.append($0) }
            return (runtime, problems)
        }
        found?.1.forEach(unwindImages.note)
        guard let runtime = found?.0 else { return }
        processes[pid, default: SampledProcess()].python = CPythonFrameReader(pid: pid, runtime: runtime)
    }

    /// Reads a JVM's exported tables (`HotSpotRuntime`) for naming its interpreted frames, once
    /// they are there: a JVM maps `libjvm.so` before it fills them in, so a process mapping it is
    /// looked at again at its next busy periods, up to `maxJVMProbes` times.
    private func probeJVM(pid: Int32, map: ProcessMemoryMap) {
        guard processes[pid]?.jvm == nil, (processes[pid]?.jvmProbes ?? 0) < Self.maxJVMProbes, JVMAttach.isJVM(map)
        else { return }
        processes[pid, default: SampledProcess()].jvmProbes += 1
        let files = unwindImages.fileSystem(pid: pid)
        let found = memory.bounded(pid: pid) { () -> (HotSpotLayout?, [TargetFileProblem]) in
            var problems: [TargetFileProblem] = []
            let layout = HotSpotRuntime.find(files: files, map: map) { problems.append($0) }
            return (layout, problems)
        }
        found?.1.forEach(unwindImages.note)
        guard let layout = found?.0 else { return }
        processes[pid, default: SampledProcess()].jvm = HotSpotFrameReader(pid: pid, layout: layout)
    }

    /// Times a JVM's tables are looked for before lagmon gives up on naming its interpreted frames.
    static let maxJVMProbes = 4

    /// Hands the unwinder the unwind tables of `images` (a new set: a library was loaded or
    /// unloaded). Runs outside the pause; opens only regular files, without blocking.
    private func updateRegions(pid: Int32, images: ProcessMemoryMap) {
        guard let unwinder = unwinder(pid: pid) else { return }
        let regions = unwindImages.regions(pid: pid, map: images)
        _ = regions.withUnsafeBufferPointer {
            lagmon_unwinder_set_regions(unwinder, $0.baseAddress, Int32(regions.count))
        }
    }
}
