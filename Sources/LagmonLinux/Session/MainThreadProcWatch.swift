import LagmonCore

/// `lagmon run`'s /proc probe of the target's main thread, for targets LD_PRELOAD cannot enter
/// (static, setuid): started with the session, stopped when the target exits, its loop added
/// to the recording unless the target linked LagmonAgent and reported that loop exactly.
struct MainThreadProcWatch {
    /// The settings to record, with the reason it is unavailable when the thread cannot be read.
    private(set) var settings: ProcProbeSettings
    /// The watcher, when the thread could be read.
    let watcher: ProcLoopWatcher?

    /// Starts watching process `pid`'s main thread; waits for the first reading.
    init(_ settings: ProcProbeSettings, pid: Int32, recorder: SessionRecorder, samplers: SessionSamplers) {
        self.settings = settings
        do {
            let files = try ProcLoopFiles(pid: pid, tid: pid)
            let name = ProcFS.taskStat(pid: pid, tid: pid)?.comm ?? ""
            let watcher = recorder.procWatcher(
                files: files, thread: ThreadRef(tid: pid, name: name), intervalNs: settings.intervalNs,
                samplers: samplers)
            samplers.prepare(pid: pid)
            try watcher.start()
            watcher.waitForFirstReading()
            self.watcher = watcher
            return
        } catch ProcLoopFiles.Failure.notPermitted(let path, _) {
            self.settings.unavailable = "lagmon may not read \(path) (run lagmon as root or with CAP_SYS_PTRACE)"
        } catch {
            self.settings.unavailable = "its main thread could not be read from /proc (\(error))"
        }
        watcher = nil
    }

    /// Stops the watcher, if any, and adds its loop to `loops` — unless a loop of the channel
    /// already reports that thread.
    func stop(atNs endNs: UInt64, loops: inout [LoopRecording]) -> ProcLoopWatcher.Result? {
        guard let watched = watcher?.stop(atNs: endNs) else { return nil }
        guard !loops.contains(where: { $0.thread.tid == watched.loop.thread.tid }) else { return nil }
        loops.append(watched.loop)
        return watched
    }

    /// Puts what was watched into `recording`: the settings when it watched or could not, its
    /// punctuality and cost when its loop was reported.
    func record(_ watched: ProcLoopWatcher.Result?, into recording: inout SessionRecording) {
        guard let watched else {
            if settings.unavailable != nil { recording.procProbe = settings }
            return
        }
        SessionRecorder.add(watched, settings: settings, to: &recording)
    }
}
