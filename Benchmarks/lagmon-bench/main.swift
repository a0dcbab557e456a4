// Measurement helper for `make bench` (scripts/bench): runs lagmon's own components against a
// live process and prints JSON. Not part of lagmon.
//
//   lagmon-bench sample <pid> <count> <interval-ms>
//       stack-samples the main thread of <pid> with StackSampler; pause and end-to-end cost per
//       sample, unwind completeness, frames
//   lagmon-bench cpu <pid> <passes>
//       one ThreadCPUSampler pass over every thread of <pid>, <passes> times: CPU cost per pass,
//       the first pass's (it opens every thread's files) and the steady passes' after it
//   lagmon-bench jitmap <pid> <lookups>
//       the perf map of <pid> (/tmp/perf-<pid>.map) as the sampler handles it: the first read,
//       a read when nothing was appended, the index built for symbolizing, and <lookups>
//       lookups of addresses inside the map's own entries; thread CPU time of each
//   lagmon-bench jvmmap <pid> <requests>
//       asks the JVM <pid> for its perf map as the sampler does (JVMAttach), <requests> times a
//       second apart (the first starts its attach listener); wall-clock time of each
//
// The probe's in-process costs (observer record, wait-call probe) are micro-benchmarks on
// ordo-one/benchmark in Benchmarks/Micro, a package of its own.
import Foundation
import LagmonCore
import LagmonLinux
import LagmonSymbols

func emit(_ object: [String: Any]) {
    let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    print(String(decoding: data, as: UTF8.self))
}

func sample(pid: Int32, count: Int, intervalMs: Int) throws {
    let sampler = StackSampler(
        pid: pid, clock: { MonotonicClock.nowNs() }, readState: { ProcFS.threadState(pid: pid, tid: $0) })
    try sampler.start()
    for _ in 0..<count {
        sampler.request(.sample(tid: pid, key: 1))
        usleep(useconds_t(intervalMs * 1000))
    }
    sampler.request(.finish(tid: pid, key: 1))
    let result = sampler.stop()
    let samples = result.samples[1] ?? []
    let map = result.maps[1] ?? ProcessMemoryMap([])
    let symbolizeStart = MonotonicClock.nowNs()
    let resolved = Symbolizer().symbolize(samples, map: map, pid: pid)
    let symbolizeNs = MonotonicClock.nowNs() - symbolizeStart
    emit([
        "samples": samples.count,
        "failures": result.failures,
        "pauseNs": samples.map(\.pauseNs),
        "unwindNs": samples.map(\.unwindNs),
        "interpreterReadNs": samples.compactMap(\.interpreterReadNs),
        "complete": samples.filter { $0.outcome == .complete }.count,
        "frames": samples.map(\.addresses.count),
        "symbolizeNs": symbolizeNs,
        "topStack": (resolved.last?.frames ?? []).map { $0.symbol ?? $0.module },
    ])
}

func cpu(pid: Int32, passes: Int) throws {
    let tracker = ThreadCPUTracker(
        configuration: .init(ticksPerSecond: ThreadCPUSampler.cpuTicksPerSecond(pid: pid), targetStartNs: 0))
    let sampler = ThreadCPUSampler(pid: pid, tracker: tracker, intervalNs: 10_000_000)
    try sampler.start()
    // The first pass opens every thread's files; the steady cost is what the passes after it cost.
    while sampler.cost.passes < 1 { usleep(5_000) }
    let first = sampler.cost
    while sampler.cost.passes < UInt64(passes) { usleep(5_000) }
    _ = sampler.stop()
    let cost = sampler.cost
    let steadyPasses = max(cost.passes - first.passes, 1)
    emit([
        "passes": cost.passes, "cpuNsPerPass": cost.cpuNsPerPass, "threadsRead": cost.threadsRead,
        "threadsCarried": cost.threadsCarried,
        "firstPassCpuNs": first.cpuNs, "steadyCpuNsPerPass": (cost.cpuNs - first.cpuNs) / steadyPasses,
    ])
}

func cpuNs() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

func jitMap(pid: Int32, lookups: Int) {
    let file = PerfMapFile(pid: pid)
    var started = cpuNs()
    guard file.refresh() else {
        FileHandle.standardError.write(
            Data("lagmon-bench: no perf map for \(pid) (\(file.refusal ?? "absent"))\n".utf8))
        exit(1)
    }
    let firstReadNs = cpuNs() - started
    let entries = file.map.entries
    let rereads = 100
    started = cpuNs()
    for _ in 0..<rereads { file.refresh() }
    let rereadNs = (cpuNs() - started) / UInt64(rereads)
    var indexNs: [UInt64] = []
    var index = file.map.index()
    for _ in 0..<5 {
        started = cpuNs()
        index = file.map.index()
        indexNs.append(cpuNs() - started)
    }
    // Addresses inside the entries, visited in a scattered order (a multiplicative step).
    var addresses: [UInt64] = []
    addresses.reserveCapacity(lookups)
    for lookup in 0..<lookups where !entries.isEmpty {
        let entry = entries[(lookup &* 7919) % entries.count]
        addresses.append(entry.start + entry.size / 2)
    }
    var hits = 0
    started = cpuNs()
    for address in addresses where index.name(at: address) != nil { hits += 1 }
    let lookupNs = cpuNs() - started
    emit([
        "entries": entries.count, "bytes": file.map.bytesConsumed, "firstReadCpuNs": firstReadNs,
        "rereadCpuNs": rereadNs, "indexCpuNs": indexNs.sorted()[indexNs.count / 2], "lookups": addresses.count,
        "hits": hits, "lookupCpuNs": Double(lookupNs) / Double(max(addresses.count, 1)),
    ])
}

/// Asks JVM `pid` for its perf map `requests` times (the first starts its attach listener), a
/// second apart as the sampler's limit allows; wall-clock time of each, and the map's entries.
func jvmMap(pid: Int32, requests: Int) {
    var wallNs: [UInt64] = []
    var started = false
    for request in 0..<requests {
        if request > 0 { usleep(1_000_000) }
        let before = MonotonicClock.nowNs()
        switch JVMAttach.requestPerfMap(pid: pid) {
        case .success(let caused): started = started || caused.startedListener
        case .failure(let failure):
            FileHandle.standardError.write(Data("lagmon-bench: JVM \(pid): \(failure.reason)\n".utf8))
            exit(1)
        }
        wallNs.append(MonotonicClock.nowNs() - before)
    }
    let file = PerfMapFile(pid: pid)
    file.refresh()
    emit(["requestWallNs": wallNs, "startedListener": started, "entries": file.map.entries.count])
}

let arguments = CommandLine.arguments
switch (arguments.count > 1 ? arguments[1] : "", arguments.count) {
case ("sample", 5): try sample(pid: Int32(arguments[2])!, count: Int(arguments[3])!, intervalMs: Int(arguments[4])!)
case ("cpu", 4): try cpu(pid: Int32(arguments[2])!, passes: Int(arguments[3])!)
case ("jitmap", 4): jitMap(pid: Int32(arguments[2])!, lookups: Int(arguments[3])!)
case ("jvmmap", 4): jvmMap(pid: Int32(arguments[2])!, requests: Int(arguments[3])!)
default:
    let usage =
        "usage: lagmon-bench sample <pid> <count> <interval-ms> | cpu <pid> <passes> | jitmap <pid> <lookups> | jvmmap <pid> <requests>\n"
    FileHandle.standardError.write(Data(usage.utf8))
    exit(64)
}
