import LagmonCore

/// The major faults of each busy period's thread: a `MajorFaultRecorder` opened after the
/// period's first sample request (or why perf refused), drained at every later one, and read at
/// the period's end into where the faults landed.
struct MajorFaultTracker {
    /// Per busy period: the recorder of its thread's major-fault addresses, or why perf refused.
    private var recorders: [UInt64: Swift.Result<MajorFaultRecorder, SystemError>] = [:]

    /// The busy periods being recorded.
    var openKeys: [UInt64] { Array(recorders.keys) }

    /// After a busy period's first sample request: starts recording its thread's major-fault
    /// addresses (once per period; a refusal is kept as the reason). After every later one:
    /// reads what was recorded, so the ring never fills between samples.
    mutating func record(tid: Int32, key: UInt64) {
        if let recording = recorders[key] {
            if case .success(let recorder) = recording { recorder.drain() }
            return
        }
        do throws(SystemError) {
            recorders[key] = .success(try MajorFaultRecorder(tid: tid))
        } catch {
            recorders[key] = .failure(error)
        }
    }

    /// At the end of busy period `key` of process `pid`: where its faults landed (the memory map
    /// read now, once, and only when there were faults), set on its first sample like
    /// `busiestOthers`; the recorder is closed.
    mutating func finish(key: UInt64, pid: Int32, samples: inout [UInt64: [StackSample]]) {
        guard let recording = recorders.removeValue(forKey: key), var kept = samples[key], !kept.isEmpty
        else { return }
        switch recording {
        case .success(let recorder):
            recorder.drain()
            let map = recorder.recorded > 0 ? ProcessMemoryMap.read(pid: pid) : nil
            kept[0].majorFaultSites = recorder.sites(map: map)
        case .failure(let error):
            kept[0].majorFaultSites = .unavailable(error.description)
        }
        samples[key] = kept
    }
}
