import Glibc
import Synchronization

extension StackSampler {
    /// A copy of everything sampled so far, made on the sampler thread between two requests
    /// (`Request.copy`) so a report snapshot can carry the stacks without stopping the sampler.
    public final class ResultCopy: Sendable {
        private let slot = Mutex<Result?>(nil)

        public init() {}

        /// Called on the sampler thread.
        func fill(_ result: Result) {
            slot.withLock { $0 = result }
        }

        /// The copy, once the sampler made it; nil when it did not within `timeoutNs` (a sampler
        /// busy with a slow stop, or one that has stopped).
        public func wait(timeoutNs: UInt64) -> Result? {
            let deadline = MonotonicClock.nowNs() + timeoutNs
            while true {
                if let result = slot.withLock({ $0 }) { return result }
                guard MonotonicClock.nowNs() < deadline else { return nil }
                var pause = timespec(tv_sec: 0, tv_nsec: 1_000_000)
                nanosleep(&pause, nil)
            }
        }
    }

    /// What `Request.copy` hands over: the result so far with the files and perf maps the
    /// symbolizer needs.
    func copyOfResult() -> Result {
        var copy = result
        copy.files = unwindImages.files
        copy.fileSystems = unwindImages.fileSystems
        copy.fileProblems = unwindImages.problems
        copy.perfMapIndexes = perfMapFiles.compactMapValues { $0.map.entries.isEmpty ? nil : $0.map.index() }
        return copy
    }
}
