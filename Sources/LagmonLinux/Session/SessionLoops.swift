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
/// naming a process gone before /proc could vouch for it are left out, uncounted. A probe in a
/// PID namespace the target made writes that namespace's numbers; following children, they are
/// turned into lagmon's (`NestedPids`) before the same check.
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
        /// Slot index → the pid the channel named when it was accepted, and that process's pid
        /// in lagmon's namespace.
        var acceptedSlots: [Int: (channelPid: Int32, pid: Int32)] = [:]
        /// Process entry index → the pid the channel named (`processes` holds lagmon's).
        var processChannelPids: [Int: Int32] = [:]
        /// Whether a process of the session was found in a PID namespace below lagmon's.
        var spansNestedNamespace = false
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
    private let nested = NestedPids()

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

    /// `slot` as lagmon sees it (its process and thread numbered in lagmon's namespace) if it
    /// names a process of the session (see the type's comment), else nil. A slot refused now is
    /// asked about again on the next pass, and counted once; one whose process was gone before
    /// lagmon could check it is left out without being counted (nothing says it lied).
    func accepted(_ slot: ChannelSlot) -> ChannelSlot? {
        if let known = state.withLock({ $0.acceptedSlots[slot.index] }), known.channelPid == slot.pid {
            return numbered(slot, pid: known.pid)
        }
        let (verdict, pid) = membership(channelPid: slot.pid, since: slot.claimedNs)
        let numberedSlot = verdict == .member ? numbered(slot, pid: pid) : nil
        // A nested process without the slot's thread: asked again on the next pass.
        let membership = verdict == .member && numberedSlot == nil ? .unverifiable : verdict
        state.withLock { state in
            switch membership {
            case .member:
                state.acceptedSlots[slot.index] = (slot.pid, pid)
                state.rejectedSlots.remove(slot.index)
            case .stranger: state.rejectedSlots.insert(slot.index)
            case .unverifiable: break
            }
        }
        return numberedSlot
    }

    /// `slot` with process `pid` (lagmon's number) and its thread in lagmon's numbers; nil when
    /// a nested process has no thread of the slot's number (gone, or never one of its threads).
    private func numbered(_ slot: ChannelSlot, pid: Int32) -> ChannelSlot? {
        guard pid != slot.pid else { return slot }
        guard let tid = nested.hostTid(pid: pid, innerTid: slot.thread.tid) else { return nil }
        return slot.numbered(pid: pid, tid: tid)
    }

    /// The session's verdict on a pid the channel names, and that process's pid in lagmon's
    /// namespace: the number as written, or (following children, when that is no member) the one
    /// process nested below lagmon's namespace that knows itself by it. Once the session has a
    /// process in a nested namespace, a number no process answers to is unverifiable, not a
    /// stranger's: it may be a nested process that already ended (a short child of the
    /// namespace's), whose number a process of lagmon's namespace may have.
    private func membership(channelPid: Int32, since sinceNs: UInt64) -> (Membership, Int32) {
        let direct = membership(channelPid, since: sinceNs)
        guard direct != .member, followChildren else { return (direct, channelPid) }
        if let pid = nested.hostPid(of: channelPid), pid != channelPid, membership(pid, since: sinceNs) == .member {
            state.withLock { $0.spansNestedNamespace = true }
            return (.member, pid)
        }
        let spans = state.withLock { $0.spansNestedNamespace }
        return (direct == .stranger && spans ? .unverifiable : direct, channelPid)
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
        guard let status = ProcFS.readFile("/proc/\(pid)/status") else { return .unverifiable }
        // A thread's id opens /proc/<tid> too, with its process's parent: only a process's own
        // pid (its thread group's id) names a process.
        guard ProcProcessText.statusNumbers("Tgid", in: status).first == pid else { return .stranger }
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
    /// A main thread's tid is its pid in any namespace, so the probe's own numbers say it.
    private func mainThreadHasLoop(pid: Int32) -> Bool {
        let accepted = state.withLock { $0.acceptedSlots }
        return channel.activeSlots().contains { slot in
            let known = accepted[slot.index].flatMap { $0.channelPid == slot.pid ? $0.pid : nil }
            return (known ?? slot.pid) == pid && slot.thread.tid == slot.pid && slot.isThreadLoop
        }
    }

    /// Reads the process table: new descendants are watched for their exit. Returns the pids
    /// of images an exec replaced since the last call (their loops are over).
    func discoverProcesses() -> [(pid: Int32, endedNs: UInt64)] {
        var replaced: [(pid: Int32, endedNs: UInt64)] = []
        var fresh: [Int32] = []
        let current = channel.processes().compactMap { entry -> ChannelProcess? in
            var process = entry
            let known = state.withLock { state in
                state.processChannelPids[entry.index] == entry.pid ? state.processes[entry.index] : nil
            }
            if let known {
                (process.pid, process.ppid) = (known.pid, known.ppid)
                return process
            }
            let (membership, pid) = membership(channelPid: entry.pid, since: entry.attachedNs)
            state.withLock { state in
                switch membership {
                case .member:
                    state.rejectedProcesses.remove(entry.index)
                    state.processChannelPids[entry.index] = entry.pid
                case .stranger: state.rejectedProcesses.insert(entry.index)
                case .unverifiable: break
                }
            }
            guard membership == .member else { return nil }
            if pid != entry.pid {
                // Its parent as lagmon numbers it (the probe wrote its namespace's).
                (process.pid, process.ppid) = (pid, ProcFS.parentPid(pid) ?? 0)
            }
            return process
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
