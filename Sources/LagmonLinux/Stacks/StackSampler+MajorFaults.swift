import Glibc
import LagmonCore

extension StackSampler {
    /// After a busy period's first sample request: starts recording its thread's major-fault
    /// addresses (once per period; a refusal is kept as the reason). After every later one:
    /// reads what was recorded, so the ring never fills between samples.
    func recordMajorFaults(tid: Int32, key: UInt64) {
        if let recording = faultRecorders[key] {
            if case .success(let recorder) = recording { recorder.drain() }
            return
        }
        do throws(SystemError) {
            faultRecorders[key] = .success(try MajorFaultRecorder(tid: tid))
        } catch {
            faultRecorders[key] = .failure(error)
        }
    }

    /// At the end of busy period `key` of process `pid`: where its faults landed (the memory map
    /// read now, once, and only when there were faults), set on its first sample like
    /// `busiestOthers`; the recorder is closed.
    func finishMajorFaults(key: UInt64, pid: Int32?) {
        guard let recording = faultRecorders.removeValue(forKey: key), var samples = result.samples[key],
            !samples.isEmpty
        else { return }
        switch recording {
        case .success(let recorder):
            recorder.drain()
            let map = recorder.recorded > 0 ? ProcessMemoryMap.read(pid: pid ?? self.pid) : nil
            samples[0].majorFaultSites = recorder.sites(map: map)
        case .failure(let error):
            samples[0].majorFaultSites = .unavailable(error.description)
        }
        result.samples[key] = samples
    }
}
