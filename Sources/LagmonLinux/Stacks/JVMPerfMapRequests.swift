import LagmonCore
import LagmonSymbols

/// The perf-map requests lagmon made of one JVM (owned by the sampler thread): a request is made
/// when a sample holds JIT code the map does not name, at most once a second within a busy period
/// (a stall's later samples mostly hold the same code) but at the first such sample of each new
/// one (a stall less than a second after the last request names its own code too), at most
/// `maxRequests` times per JVM, and no more after `maxFailures` failed ones.
struct JVMPerfMapRequests {
    /// Requests per JVM, at most: each makes the JVM write its whole map.
    static let maxRequests = 32
    /// Failed requests per JVM after which lagmon stops asking.
    static let maxFailures = 2
    /// Least time between two requests.
    static let intervalNs: UInt64 = 1_000_000_000

    /// What the first successful request caused (the listener, the map), for the cleanup.
    var caused: JVMAttach.Request?
    var requests = 0
    var failures = 0
    var lastRequestNs: UInt64?
    /// The busy period whose sample the last request was made for.
    var lastRequestKey: UInt64?

    /// Whether a request may be made at `nowNs` for a sample of busy period `key`.
    func mayRequest(atNs nowNs: UInt64, key: UInt64) -> Bool {
        requests < Self.maxRequests && failures < Self.maxFailures
            && (key != lastRequestKey || lastRequestNs.map { nowNs &- $0 >= Self.intervalNs } ?? true)
    }

    /// Notes the outcome of a request made at `nowNs` for a sample of busy period `key`.
    mutating func record(_ outcome: Result<JVMAttach.Request, JVMAttach.Failure>, atNs nowNs: UInt64, key: UInt64) {
        requests += 1
        lastRequestNs = nowNs
        lastRequestKey = key
        switch outcome {
        case .success(let request):
            if var first = caused {
                first.startedListener = first.startedListener || request.startedListener
                caused = first
            } else {
                caused = request
            }
        case .failure:
            failures += 1
        }
    }
}

extension SamplerWorker {
    /// Asks JVM `pid` for a fresh perf map when `addresses` (a sample of busy period `key`) hold
    /// JIT code its map does not name
    /// (JVMs write theirs only when asked); after the pause, so the request never waits on a
    /// stopped thread. The map is then read anew: the JVM rewrites it in place.
    func requestJVMPerfMap(pid: Int32, key: UInt64, addresses: [UInt64], map: ProcessMemoryMap) {
        var requests = processes[pid]?.jvmPerfMapRequests ?? JVMPerfMapRequests()
        let nowNs = MonotonicClock.nowNs()
        guard requests.mayRequest(atNs: nowNs, key: key) else { return }
        let index = processes[pid]?.perfMap?.map.index()
        let unnamed = addresses.contains { address in
            let module = map.module(containing: address)
            let anonymous = module.map { !$0.mapping.isFile && $0.name != "[vdso]" } ?? true
            return anonymous && index?.name(at: address) == nil && index?.name(at: address &- 1) == nil
        }
        guard unnamed else { return }
        let outcome = JVMAttach.requestPerfMap(pid: pid)
        requests.record(outcome, atNs: nowNs, key: key)
        processes[pid, default: SampledProcess()].jvmPerfMapRequests = requests
        if case .success = outcome {
            let file = PerfMapFile(files: unwindImages.fileSystem(pid: pid))
            if !file.refresh(), let problem = file.problem { unwindImages.note(problem) }
            processes[pid, default: SampledProcess()].perfMap = file
        }
    }
}
