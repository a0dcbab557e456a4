import LagmonCore
import LagmonSymbols
import Synchronization

/// Names the call sites of StrictMode's blocking calls. A site is an address in the target, so
/// it needs the target's memory map, which is gone once the target exits: the map of the target
/// is read as soon as its probe attached (its libraries are mapped by then), the map of each
/// process with a watched loop when its loop is first seen and again whenever its loops' call
/// tables grew, and the sites are symbolized at the end. A program that exits within moments of
/// starting may end before any read: its sites keep their addresses only.
final class BlockingCallSites: Sendable {
    /// Per process: its latest map, the call-table entries its loops had when it was read, and
    /// its file system (its root held open while it ran: the images are read after it exited).
    private let maps = Mutex<[Int32: (map: ProcessMemoryMap, entries: Int, files: TargetFileSystem)]>([:])

    /// Reads the map of `pid` unless one was read (the caller knows its probe attached, so the
    /// image is the program's, not lagmon's child before its exec).
    func prime(pid: Int32) {
        guard maps.withLock({ $0[pid] == nil }), let map = ProcessMemoryMap.read(pid: pid) else { return }
        let files = TargetFileSystem(pid: pid)
        maps.withLock { $0[pid] = $0[pid] ?? (map, 0, files) }
    }

    /// Whether a map of `pid` was read.
    func hasMap(pid: Int32) -> Bool { maps.withLock { $0[pid] != nil } }

    /// Reads the map of every process whose loops' tables have entries it has not seen yet
    /// (or that has none read yet).
    func refresh(_ slots: [ChannelSlot]) {
        var entries: [Int32: Int] = [:]
        for slot in slots { entries[slot.pid, default: 0] += slot.blockingCalls().records.count }
        for (pid, count) in entries {
            let known = maps.withLock { $0[pid]?.entries }
            guard known.map({ count > $0 }) ?? true, let map = ProcessMemoryMap.read(pid: pid) else { continue }
            let files = known == nil ? TargetFileSystem(pid: pid) : nil
            maps.withLock { $0[pid] = (map, count, files ?? $0[pid]?.files ?? TargetFileSystem(pid: pid)) }
        }
    }

    /// Fills in the site of every blocking call of `loops`, with the map read for its process.
    func symbolize(_ loops: inout [LoopRecording], symbolizer: Symbolizer) {
        let known = maps.withLock { $0 }
        for index in loops.indices where !loops[index].blockingCalls.isEmpty {
            guard let (map, _, files) = known[loops[index].pid] else { continue }
            // A return address: the call is the instruction before it.
            let stacks = loops[index].blockingCalls.map { [$0.siteAddress &- 1] }
            let frames = symbolizer.symbolize(stacks: stacks, map: map, pid: loops[index].pid, fileSystem: files)
            for (call, frame) in zip(loops[index].blockingCalls.indices, frames) {
                loops[index].blockingCalls[call].site = frame.first
            }
        }
    }
}
