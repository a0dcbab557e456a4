import CLagmonProbe

/// Observes the main run loop of a Swift program for lagmon, for programs that prefer linking
/// a library to being started with the LD_PRELOAD probe (both work; together they do not
/// double count).
public enum LagmonAgent {
    /// Installs the run loop observer when the process runs under `lagmon run`; otherwise does
    /// nothing. Call it on the main thread, before or while the main run loop runs.
    ///
    /// - Returns: whether the main run loop is now observed.
    @discardableResult
    public static func install() -> Bool {
        guard let channel = lagmon_probe_channel() else { return false }
        lagmon_probe_note_agent(channel)
        return lagmon_probe_install_main_observer(0) == LAGMON_INSTALL_DONE
    }
}
