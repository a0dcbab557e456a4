import LagmonCore

extension RunSession {
    /// Starts watching the target's main thread from /proc when the options ask for it (targets
    /// LD_PRELOAD cannot enter). Returns the settings to record, with the reason it is
    /// unavailable when the thread cannot be read (a setuid target lagmon may not trace).
    func startProcWatcher(pid: Int32, channel: Channel, samplers: SessionSamplers) -> ProcProbeSettings? {
        guard var settings = options.procProbe else { return nil }
        do {
            let files = try ProcLoopFiles(pid: pid, tid: pid)
            let name = ProcFS.taskStat(pid: pid, tid: pid)?.comm ?? ""
            let watcher = ProcLoopWatcher(
                files: files, thread: ThreadRef(tid: pid, name: name), clock: { channel.nowNs() },
                settings: .init(
                    intervalNs: settings.intervalNs, detector: detectorConfiguration,
                    latenessToleranceNs: options.latenessToleranceNs, endNs: nil)
            ) { event in samplers.handle(event, tid: pid) }
            try watcher.start()
            watcher.waitForFirstReading()
            procWatcher.withLock { $0 = watcher }
        } catch ProcLoopFiles.Failure.notPermitted(let path, _) {
            settings.unavailable = "lagmon may not read \(path) (run lagmon as root or with CAP_SYS_PTRACE)"
        } catch {
            settings.unavailable = "its main thread could not be read from /proc (\(error))"
        }
        return settings
    }

    /// Stops the /proc probe's watcher, if any, and adds its loop to `loops` — unless the target
    /// linked LagmonAgent and reported that thread's loop through the channel: that is exact.
    func finishProcWatcher(atNs endNs: UInt64, loops: inout [LoopRecording]) -> ProcLoopWatcher.Result? {
        guard let watched = procWatcher.withLock({ $0 })?.stop(atNs: endNs) else { return nil }
        guard !loops.contains(where: { $0.thread.tid == watched.loop.thread.tid }) else { return nil }
        loops.append(watched.loop)
        return watched
    }

    /// Puts what the /proc probe watched into `recording`: its settings, its punctuality, its cost.
    static func add(
        _ watched: ProcLoopWatcher.Result?, settings: ProcProbeSettings?, to recording: inout SessionRecording
    ) {
        guard let watched else {
            if settings?.unavailable != nil { recording.procProbe = settings }
            return
        }
        recording.procProbe = settings
        recording.lateness.merge(watched.lateness)
        recording.overhead?.probeReadings = watched.readings
        recording.overhead?.probeCPUNs = watched.cpuNs
    }
}
