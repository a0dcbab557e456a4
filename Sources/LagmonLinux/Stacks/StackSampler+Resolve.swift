import LagmonCore
import LagmonSymbols

extension StackSampler.Result {
    /// The samples of busy period `key`, symbolized against the images read at its first sample,
    /// with the interpreter's frames merged in; `pid` when the sampler did not record the process.
    func resolved(key: UInt64, samples: [StackSample], pid: Int32, symbolizer: Symbolizer) -> [ResolvedSample] {
        symbolizer.symbolize(samples, map: maps[key] ?? ProcessMemoryMap([]), pid: pids[key] ?? pid, files: files)
            .map { sample in
                ResolvedSample(
                    sample: sample.sample,
                    frames: InterpreterStackMerger.merge(
                        native: sample.frames, interpreted: sample.sample.interpreterFrames),
                    images: sample.images)
            }
    }
}
