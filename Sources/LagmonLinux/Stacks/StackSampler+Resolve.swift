import LagmonCore
import LagmonSymbols

extension StackSampler.Result {
    /// The samples of busy period `key`, symbolized against the images read at its first sample,
    /// HotSpot's interpreted frames named after the methods read from them, JIT frames named from
    /// the process's perf map, with the interpreter's frames merged in; `pid`
    /// when the sampler did not record the process.
    func resolved(key: UInt64, samples: [StackSample], pid: Int32, symbolizer: Symbolizer) -> [ResolvedSample] {
        let samplePid = pids[key] ?? pid
        let jit = perfMapIndexes[samplePid]
        let map = maps[key] ?? ProcessMemoryMap([])
        let holderFrames = holderFrames(samples, map: map, pid: samplePid, symbolizer: symbolizer)
        let asyncCallers = asyncCallerFrames(samples, map: map, pid: samplePid, symbolizer: symbolizer)
        return symbolizer.symbolize(samples, map: map, pid: samplePid, files: files, fileSystem: fileSystems[samplePid])
            .enumerated().map { index, sample in
                let interpreted = sample.sample.interpreterFrames
                let java = JVMFrameName.named(sample.frames, interpreted: sample.sample.interpretedJava)
                var native =
                    jit.map { JITSymbolizer.resolve(java, index: $0, interpreterFrames: !interpreted.isEmpty) } ?? java
                if let after = sample.sample.asyncCallerIndex, after < native.count {
                    native.insert(contentsOf: asyncCallers[index], at: after + 1)
                }
                var resolved = ResolvedSample(
                    sample: sample.sample,
                    frames: InterpreterStackMerger.merge(native: native, interpreted: interpreted),
                    images: sample.images)
                resolved.holderFrames = holderFrames[index]
                return resolved
            }
    }

    /// The logical frames of each sample's Swift async callers (`StackSample.asyncCallers`), empty
    /// where none. A resume address is a function's entry, not a return address: each is looked up
    /// as it is (a stack of its own, where the first address is never taken as a return).
    private func asyncCallerFrames(
        _ samples: [StackSample], map: ProcessMemoryMap, pid: Int32, symbolizer: Symbolizer
    ) -> [[Frame]] {
        let callers = samples.map(\.asyncCallers)
        guard callers.contains(where: { !$0.isEmpty }) else { return callers.map { _ in [] } }
        let distinct = Array(Set(callers.joined())).sorted()
        let frames = symbolizer.symbolize(
            stacks: distinct.map { [$0] }, map: map, pid: pid, files: files, fileSystem: fileSystems[pid])
        let byAddress = Dictionary(uniqueKeysWithValues: zip(distinct, frames.map { $0.first }))
        return callers.map { addresses in
            addresses.map { address in
                let found = byAddress[address].flatMap { $0 }
                var frame = found ?? Frame(symbol: nil, module: "?", offset: address, address: address)
                frame.isAsync = true
                frame.isAsyncCaller = true
                return frame
            }
        }
    }

    /// The frames of each sample's lock holder (same process, same map), empty where none.
    private func holderFrames(_ samples: [StackSample], map: ProcessMemoryMap, pid: Int32, symbolizer: Symbolizer)
        -> [[Frame]]
    {
        let stacks = samples.map { $0.lock?.holder?.addresses ?? [] }
        guard stacks.contains(where: { !$0.isEmpty }) else { return stacks.map { _ in [] } }
        return symbolizer.symbolize(stacks: stacks, map: map, pid: pid, files: files, fileSystem: fileSystems[pid])
    }
}
