/// Says in one line why a stall happened, from what /proc said about the thread at each stack
/// sample. Each sample is classified, in this order:
///
/// 1. state `D` → `io` (uninterruptible I/O), placed from /proc alone (`ioPlace`): a thread
///    that cannot be stopped has no stack;
/// 2. in `futex` or `futex_waitv` → `lock`; in `nanosleep`, `clock_nanosleep` or `pause` → `sleep`;
///    in any other system call → `syscall`;
/// 3. state `R` → `runqueue` when its run-queue delay (schedstat) grew by more than half the
///    time since the previous sample, or when it is a state-only sample (the thread, runnable,
///    never got a CPU to reach its stop), else `cpu`;
/// 4. asleep (`S`, `I`) without a known system call (/proc/…/syscall unreadable) → `syscall`,
///    "blocked in the kernel". Samples without a thread state, or in another state (stopped,
///    zombie, …), are not counted.
///
/// A sample in `restart_syscall` (the kernel resuming a call the previous sample's stop
/// interrupted) counts as the call the thread was last seen in.
///
/// The kind with the most samples wins (ties: io, lock, sleep, syscall, runqueue, cpu); its time
/// is the stall's duration times its share of the counted samples. A sample lands only when the
/// thread gets a CPU, so samples under-count waiting for one: when the winner is `cpu` or
/// `runqueue` and the stall's measured run-queue share (`ContentionReport`, from its opening and
/// closing /proc readings) is at least half, the stall is `runqueue` for that share of its time.
public struct StallDiagnoser: Sendable {
    /// The diagnosis of a stall without stack samples.
    public static let noSamples = StallDiagnosis.noSamples

    public init() {}

    /// The diagnosis of a stall of `durationNs` whose stack samples are `samples` and whose
    /// culprit (StallProfiler) is `culprit`.
    /// A sample whose memory could not be read in time (`StackSample.memoryUnreadable`) adds
    /// `memoryUnreadableNote` to the text: its stack is the instruction pointer alone.
    /// `runQueueShare` is the stall's measured run-queue share, when known.
    public func diagnose(_ samples: [StackSample], durationNs: UInt64, culprit: Frame?, runQueueShare: Double? = nil)
        -> StallDiagnosis
    {
        var diagnosis = diagnoseStates(samples, durationNs: durationNs, culprit: culprit)
        if let runQueueShare, runQueueShare >= 0.5, diagnosis.kind == .cpu || diagnosis.kind == .runqueue {
            let waitedNs = UInt64((Double(durationNs) * min(runQueueShare, 1)).rounded())
            diagnosis = StallDiagnosis(
                kind: .runqueue, text: Self.text(.runqueue, durationNs: waitedNs, detail: nil, culprit: culprit))
        }
        if samples.contains(where: \.memoryUnreadable) { diagnosis.text += Self.memoryUnreadableNote }
        return diagnosis
    }

    /// Said of a stall whose samples could not read the target's memory in time.
    public static let memoryUnreadableNote = "; target memory unreadable (read timed out)"

    private func diagnoseStates(_ samples: [StackSample], durationNs: UInt64, culprit: Frame?) -> StallDiagnosis {
        guard !samples.isEmpty else { return Self.noSamples }
        let observations = Self.classify(samples)
        guard !observations.isEmpty else { return StallDiagnosis(kind: .unknown, text: "thread state unavailable") }
        var counts: [StallDiagnosis.Kind: Int] = [:]
        for observation in observations { counts[observation.kind, default: 0] += 1 }
        let kind = Self.precedence.max { (counts[$0] ?? 0, $1.rank) < (counts[$1] ?? 0, $0.rank) } ?? .unknown
        let share = Self.share(durationNs, counts[kind] ?? 0, of: observations.count)
        let detail = Self.mostCommonDetail(observations.filter { $0.kind == kind })
        return StallDiagnosis(kind: kind, text: Self.text(kind, durationNs: share, detail: detail, culprit: culprit))
    }

    /// The time of a stall of `durationNs` its diagnosis gives waiting on a lock: the duration
    /// times the lock samples' share of the classified ones.
    public static func lockShare(_ samples: [StackSample], durationNs: UInt64) -> UInt64 {
        let observations = classify(samples)
        return share(durationNs, observations.filter { $0.kind == .lock }.count, of: observations.count)
    }

    /// One classified sample: its kind and what to name (`read(fd 7 → pipe)`, `nanosleep`).
    struct Observation: Equatable {
        var kind: StallDiagnosis.Kind
        var detail: String?
    }

    /// Tie-break order: blocking kinds name something more specific than running.
    static let precedence: [StallDiagnosis.Kind] = [.io, .lock, .sleep, .syscall, .runqueue, .cpu]

    /// Samples in time order, each classified; those without a thread state are skipped.
    static func classify(_ samples: [StackSample]) -> [Observation] {
        let ordered = samples.enumerated().sorted {
            ($0.element.timestampNs, $0.offset) < ($1.element.timestampNs, $1.offset)
        }
        .map(\.element)
        var observations: [Observation] = []
        var lastCall: SyscallInfo?
        for (index, sample) in ordered.enumerated() {
            guard var state = sample.state else { continue }
            if let syscall = state.syscall {
                if syscall.number == SyscallTable.restartNumber, let lastCall {
                    state.syscall = lastCall
                } else {
                    lastCall = syscall
                }
            }
            let previous = index > 0 ? ordered[index - 1] : nil
            if sample.isStateOnly, state.state == .running {
                observations.append(Observation(kind: .runqueue))
            } else if let observation = classify(state, at: sample.timestampNs, previous: previous) {
                observations.append(observation)
            }
        }
        return observations
    }

    /// The kind of one sample, nil when its state says nothing about the stall (stopped, zombie).
    static func classify(_ state: ThreadStateSample, at timestampNs: UInt64, previous: StackSample?)
        -> Observation?
    {
        if state.state == .diskSleep { return Observation(kind: .io, detail: ioPlace(state)) }
        if let syscall = state.syscall {
            if SyscallTable.lockWaitCalls.contains(syscall.name) {
                return Observation(kind: .lock, detail: syscall.name)
            }
            if SyscallTable.sleepCalls.contains(syscall.name) { return Observation(kind: .sleep, detail: syscall.name) }
            return Observation(kind: .syscall, detail: call(syscall))
        }
        if state.state == .sleeping || state.state == .idle {
            let wchan = state.wchan.flatMap { $0.isEmpty || $0 == "0" ? nil : $0 }
            return Observation(kind: .syscall, detail: wchan.map { "the kernel (\($0))" } ?? "the kernel")
        }
        guard state.state == .running else { return nil }
        guard let previous, let before = previous.state, timestampNs > previous.timestampNs else {
            return Observation(kind: .cpu)
        }
        let waitedNs = saturatingSubtract(state.runDelayNs, before.runDelayNs)
        let intervalNs = timestampNs - previous.timestampNs
        return Observation(kind: waitedNs > intervalNs / 2 ? .runqueue : .cpu)
    }

    /// `read(fd 7 → pipe)` when the first argument is a descriptor, else the bare name.
    static func call(_ syscall: SyscallInfo) -> String {
        guard let target = syscall.descriptorTarget, let fd = syscall.arguments.first else { return syscall.name }
        return "\(syscall.name)(fd \(Int64(bitPattern: fd)) → \(describe(target)))"
    }

    /// Where a thread in uninterruptible sleep is, from /proc alone (it cannot be stopped to
    /// sample its stack): `reading /var/lib/app/db (fd 7)` for a descriptor call, `in vfork
    /// (kernel_clone)` for another call, `in the kernel (io_schedule)` from the wait channel.
    static func ioPlace(_ state: ThreadStateSample) -> String? {
        let wchan = state.wchan.flatMap { $0.isEmpty || $0 == "0" ? nil : $0 }
        guard let syscall = state.syscall else { return wchan.map { "in the kernel (\($0))" } }
        guard let target = syscall.descriptorTarget, let fd = syscall.arguments.first else {
            return "in \(syscall.name)" + (wchan.map { " (\($0))" } ?? "")
        }
        let file = "\(describe(target)) (fd \(Int64(bitPattern: fd)))"
        return ioVerbs[syscall.name].map { "\($0) \(file)" } ?? "in \(syscall.name) on \(file)"
    }

    /// What a descriptor call does to its file, said as an -ing verb.
    static let ioVerbs: [String: String] = [
        "read": "reading", "pread64": "reading", "readv": "reading", "preadv": "reading", "preadv2": "reading",
        "write": "writing", "pwrite64": "writing", "writev": "writing", "pwritev": "writing", "pwritev2": "writing",
        "fsync": "syncing", "fdatasync": "syncing", "sync_file_range": "syncing", "syncfs": "syncing",
        "getdents64": "listing", "getdents": "listing", "fallocate": "allocating", "ftruncate": "truncating",
    ]

    /// `pipe:[123]` → `pipe`, `socket:[456]` → `socket`, `anon_inode:[eventfd]` → `eventfd`;
    /// paths unchanged.
    static func describe(_ target: String) -> String {
        guard !target.hasPrefix("/"), let colon = target.firstIndex(of: ":") else { return target }
        let kind = target[..<colon]
        guard kind == "anon_inode" else { return String(kind) }
        let name = String(target[target.index(after: colon)...].filter { $0 != "[" && $0 != "]" })
        return name.isEmpty ? String(kind) : name
    }

    /// The detail most observations share (the earliest on a tie).
    static func mostCommonDetail(_ observations: [Observation]) -> String? {
        var counts: [String: (count: Int, first: Int)] = [:]
        for (index, detail) in observations.compactMap(\.detail).enumerated() {
            counts[detail, default: (0, index)].count += 1
        }
        return counts.min { ($1.value.count, $0.value.first) < ($0.value.count, $1.value.first) }?.key
    }

    /// `durationNs × part / whole`, rounded to the nearest nanosecond, without overflow.
    static func share(_ durationNs: UInt64, _ part: Int, of whole: Int) -> UInt64 {
        guard whole > 0 else { return 0 }
        let (part, whole) = (UInt64(part), UInt64(whole))
        return durationNs / whole * part + (durationNs % whole * part + whole / 2) / whole
    }

    static func text(_ kind: StallDiagnosis.Kind, durationNs: UInt64, detail: String?, culprit: Frame?) -> String {
        let duration = DurationText.format(nanoseconds: durationNs)
        switch kind {
        case .io:
            if let detail { return "in uninterruptible I/O \(detail) for \(duration)" }
            return "in uninterruptible I/O (D state) for \(duration)" + (culprit.map { " in \($0.displayName)" } ?? "")
        case .lock: return "waiting on a lock (futex) for \(duration)"
        case .sleep: return "sleeping for \(duration) (\(detail ?? "nanosleep"))"
        case .syscall: return "blocked \(duration) in \(detail ?? "the kernel")"
        case .runqueue: return "waiting for a CPU for \(duration)"
        case .cpu: return culprit.map { "CPU-bound in \($0.displayName)" } ?? "CPU-bound"
        case .unknown: return "no stack samples"
        }
    }
}

extension StallDiagnosis.Kind {
    /// Position in StallDiagnoser.precedence (lower wins a tie).
    fileprivate var rank: Int { StallDiagnoser.precedence.firstIndex(of: self) ?? Int.max }
}
