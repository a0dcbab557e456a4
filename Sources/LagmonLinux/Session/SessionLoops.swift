import CLagmonShared
import Glibc
import LagmonCore
import LagmonSymbols
import Synchronization

/// Which of the loops the probes publish a session watches (`--loops`), and the processes they
/// belong to: the process table's images, when each ended (exit, exec, or death noticed on its
/// pidfd), and the names of loop threads left unwatched. Safe from any thread.
///
/// The target writes the channel, so a pid it names is believed only when /proc agrees: the
/// target itself, or with `--follow-children` a process whose parent chain leads to it (or to
/// lagmon, which adopts the target's orphans: `Subreaper`). Slots and
/// process entries naming anything else are counted and never watched, read or sampled; those
/// naming a process gone before /proc could vouch for it are left out, uncounted.
final class SessionLoops: Sendable {
    private struct State {
        /// Slot index → the thread as it was when selected.
        var selected: [Int: ThreadRef] = [:]
        /// Slot index → name of a loop thread not selected (yet: names can change).
        var unselected: [Int: String] = [:]
        /// Process table entries seen so far.
        var processes: [Int: ChannelProcess] = [:]
        /// pid → when lagmon noticed it ended (channel clock).
        var noticedEnds: [Int32: UInt64] = [:]
        /// Descendants /proc showed to descend from the target.
        var descendants: Set<Int32> = []
        /// Slot index → the pid it was accepted for.
        var acceptedSlots: [Int: Int32] = [:]
        /// Slots and process entries that named a process outside the session.
        var rejectedSlots: Set<Int> = []
        var rejectedProcesses: Set<Int> = []
    }

    let selection: LoopSelection
    private let channel: Channel
    private let targetPid: Int32
    private let followChildren: Bool
    private let state = Mutex(State())
    private let exits = ProcessExitWatcher()

    /// Dates descendants' deaths on the kernel's word, when it can (on the channel's clock).
    private let deaths: TaskDeathClock?

    /// Watches `channel` for a target `targetPid`.
    init(
        selection: LoopSelection, channel: Channel, targetPid: Int32, followChildren: Bool, deaths: TaskDeathClock?
    ) {
        self.selection = selection
        self.channel = channel
        self.targetPid = targetPid
        self.followChildren = followChildren
        self.deaths = deaths
    }

    /// Starts watching descendants' exits: `onEnded` hears of each descendant that ended (pid,
    /// channel time: its death as the kernel dated it, else when it was noticed), on the exit
    /// watcher's thread.
    func start(onEnded: @escaping @Sendable (Int32, UInt64) -> Void) throws {
        try exits.start { [weak self, channel, deaths] pid in
            guard let self else { return }
            let noticedNs = channel.nowNs()
            let endNs = deaths?.takeDeathNs(of: pid).map { min($0, noticedNs) } ?? noticedNs
            state.withLock { $0.noticedEnds[pid] = $0.noticedEnds[pid] ?? endNs }
            onEnded(pid, endNs)
        }
    }

    /// Stops watching processes (the session is over).
    func stop() { exits.stop() }

    /// Whether `slot` names a process of the session (see the type's comment). A slot refused
    /// now is asked about again on the next pass, and counted once; one whose process was gone
    /// before lagmon could check it is left out without being counted (nothing says it lied).
    func accepts(_ slot: ChannelSlot) -> Bool {
        if state.withLock({ $0.acceptedSlots[slot.index] == slot.pid }) { return true }
        let membership = membership(slot.pid, since: slot.claimedNs)
        state.withLock { state in
            switch membership {
            case .member:
                state.acceptedSlots[slot.index] = slot.pid
                state.rejectedSlots.remove(slot.index)
            case .stranger: state.rejectedSlots.insert(slot.index)
            case .unverifiable: break
            }
        }
        return membership == .member
    }

    /// Slots and process entries that named a process outside the session, so far.
    var rejectedEntries: Int { state.withLock { $0.rejectedSlots.count + $0.rejectedProcesses.count } }

    /// What /proc says of a pid the channel names.
    private enum Membership {
        /// The target, or (following children) a process /proc showed descends from it.
        case member
        /// Anything else /proc shows (or a pid that cannot be a descendant).
        case stranger
        /// Gone before lagmon could check it: it may have been an honest descendant that lived
        /// and ended between two discovery passes.
        case unverifiable
    }

    /// Whether `pid` is of the session: the target, or (following children) a process /proc
    /// shows descends from it. A descendant seen to end stays one for what it claimed while it
    /// lived (`sinceNs`, channel clock, at or before its end: its slots are then only read, never
    /// watched live); a later claim naming its pid (reused, or forged) is left out: lagmon no
    /// longer follows that pid.
    private func membership(_ pid: Int32, since sinceNs: UInt64) -> Membership {
        if pid == targetPid { return .member }
        guard followChildren, pid > 1 else { return .stranger }
        let (known, endedNs) = state.withLock { ($0.descendants.contains(pid), $0.noticedEnds[pid]) }
        if let endedNs { return sinceNs <= endedNs ? (known ? .member : .stranger) : .unverifiable }
        if known { return .member }
        guard ProcFS.parentPid(pid) != nil else { return .unverifiable }
        guard ProcessLineage.descends(pid, from: targetPid, parent: Self.sessionParent(targetPid: targetPid)) else {
            return .stranger
        }
        state.withLock { _ = $0.descendants.insert(pid) }
        return .member
    }

    /// A process's parent as the session's lineage sees it: a child of lagmon other than its own
    /// helpers is an orphan lagmon adopted (it is the target's subreaper, `Subreaper`), whose
    /// parent chain led to the target before its parent ended; it counts as the target's child.
    private static func sessionParent(targetPid: Int32) -> (Int32) -> Int32? {
        let lagmon = getpid()
        return { pid in
            guard let parent = ProcFS.parentPid(pid) else { return nil }
            return parent == lagmon && !HelperProcesses.contains(pid) ? targetPid : parent
        }
    }

    /// The thread to report for `slot` if its loop is watched, nil if not (a loop left out now
    /// may be selected later: a thread can rename itself after its loop started).
    func watchedThread(_ slot: ChannelSlot) -> ThreadRef? {
        if let thread = state.withLock({ $0.selected[slot.index] }) { return thread }
        var thread = slot.thread
        // The tid is the channel's (the target can write it): no thread has one below 1. (A
        // forged slot of a kind watched on every thread, a tokio worker's, was reported with
        // tid 0 and -1 by the live hostile fuzzer.)
        guard thread.tid > 0 else { return nil }
        // The main actor's loop is the actor, not the thread that happened to run its first job.
        if !slot.isSwiftMainActor, let current = ProcFS.taskStat(pid: slot.pid, tid: thread.tid)?.comm {
            thread.name = current
        }
        let chosen = selection.matches(
            tid: thread.tid, pid: slot.pid, name: thread.name,
            mainThreadHasLoop: selection.auto && mainThreadHasLoop(pid: slot.pid),
            loopPerThread: selection.auto && (slot.isTokioWorker || runsLoopPerThread(pid: slot.pid)))
        state.withLock { state in
            if chosen {
                state.selected[slot.index] = thread
                state.unselected[slot.index] = nil
            } else {
                state.unselected[slot.index] = thread.name
            }
        }
        return chosen ? thread : nil
    }

    /// Whether process `pid` is node, whose `worker_threads` each run an event loop of the
    /// program's (its other threads — libuv's pool, V8's platform workers — wait on futexes and
    /// are never loops). By the executable's name, as for its perf map (`JITMaps`), read each
    /// time: an exec may have changed it.
    private func runsLoopPerThread(pid: Int32) -> Bool {
        var target = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/\(pid)/exe", &target, target.count - 1)
        guard length > 0 else { return false }
        let path = String(decoding: target.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return JITMaps.runtime(of: path) == .node
    }

    /// Whether process `pid`'s main thread runs a loop of its own (a CFRunLoop or wait calls).
    private func mainThreadHasLoop(pid: Int32) -> Bool {
        channel.activeSlots().contains { $0.pid == pid && $0.thread.tid == pid && $0.isThreadLoop }
    }

    /// Reads the process table: new descendants are watched for their exit. Returns the pids
    /// of images an exec replaced since the last call (their loops are over).
    func discoverProcesses() -> [(pid: Int32, endedNs: UInt64)] {
        var replaced: [(pid: Int32, endedNs: UInt64)] = []
        var fresh: [Int32] = []
        let current = channel.processes().filter { process in
            if state.withLock({ $0.processes[process.index]?.pid == process.pid }) { return true }
            let membership = membership(process.pid, since: process.attachedNs)
            state.withLock { state in
                switch membership {
                case .member: state.rejectedProcesses.remove(process.index)
                case .stranger: state.rejectedProcesses.insert(process.index)
                case .unverifiable: break
                }
            }
            return membership == .member
        }
        state.withLock { state in
            for process in current {
                let previous = state.processes[process.index]
                // A process seen to end is not watched again: its pid may name a stranger by now.
                if previous == nil && process.pid != targetPid && !fresh.contains(process.pid)
                    && state.noticedEnds[process.pid] == nil
                    && !state.processes.values.contains(where: { $0.pid == process.pid })
                {
                    fresh.append(process.pid)
                }
                if process.flags & LAGMON_PROCESS_EXECED.rawValue != 0, previous?.endedNs ?? 0 == 0 {
                    replaced.append((process.pid, process.endedNs))
                }
                state.processes[process.index] = process
            }
        }
        for pid in fresh {
            deaths?.follow(pid)
            exits.watch(pid)
        }
        return replaced
    }

    /// When the image behind `slot` ended, if it did before the session's end.
    func endNs(of slot: ChannelSlot) -> UInt64? {
        state.withLock { state in
            let image = slot.processIndex.flatMap { state.processes[$0] }
            let probeEnd = image.map(\.endedNs).flatMap { $0 == 0 ? nil : $0 }
            let noticed = state.noticedEnds[slot.pid].flatMap { $0 >= slot.claimedNs ? $0 : nil }
            return [probeEnd, noticed].compactMap { $0 }.min()
        }
    }

    /// When the target's last image recorded its own exit (its probe's destructor, at `exit()`),
    /// if it did and that was after `spawnNs`; nil after a kill or crash, or when the last image
    /// probed was replaced by an exec (the program it became is not probed).
    func targetEndNs(spawnNs: UInt64) -> UInt64? {
        state.withLock { state in
            let images = state.processes.values.filter { $0.pid == targetPid }
            guard let last = images.max(by: { $0.attachedNs < $1.attachedNs }), last.endedNs > spawnNs,
                last.flags & LAGMON_PROCESS_EXECED.rawValue == 0
            else { return nil }
            return last.endedNs
        }
    }

    /// Every image in table order, with when each ended.
    func processRecordings() -> [ProcessRecording] {
        _ = discoverProcesses()
        return state.withLock { state in
            state.processes.keys.sorted().compactMap { index in
                guard let process = state.processes[index] else { return nil }
                let noticed = state.noticedEnds[process.pid].flatMap { $0 >= process.attachedNs ? $0 : nil }
                return process.recording(noticedEndNs: noticed)
            }
        }
    }

    /// Names of loop threads `--loops` left out, sorted.
    var unselectedNames: [String] { state.withLock { $0.unselected.values.sorted() } }
}
