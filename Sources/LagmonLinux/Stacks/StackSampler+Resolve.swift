import LagmonCore
import LagmonSymbols

extension StackSampler.Result {
    /// The samples of busy period `key`, symbolized against the images read at its first sample,
    /// JIT frames named from the process's perf map, with the interpreter's frames merged in; `pid`
    /// when the sampler did not record the process.
    func resolved(key: UInt64, samples: [StackSample], pid: Int32, symbolizer: Symbolizer) -> [ResolvedSample] {
        let samplePid = pids[key] ?? pid
        let jit = perfMapIndexes[samplePid]
        return symbolizer.symbolize(samples, map: maps[key] ?? ProcessMemoryMap([]), pid: samplePid, files: files)
            .map { sample in
                let interpreted = sample.sample.interpreterFrames
                let native =
                    jit.map { JITSymbolizer.resolve(sample.frames, index: $0, interpreterFrames: !interpreted.isEmpty) }
                    ?? sample.frames
                return ResolvedSample(
                    sample: sample.sample,
                    frames: InterpreterStackMerger.merge(native: native, interpreted: interpreted),
                    images: sample.images)
            }
    }
}
