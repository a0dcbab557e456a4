/// What the probes in the target said about themselves (bits of the channel's probe flags).
public struct ProbeStatus: Sendable, Equatable {
    /// The preload library ran its constructor in the target.
    public var preloadLoaded: Bool
    /// LagmonAgent.install() was called.
    public var agentCalled: Bool
    /// CoreFoundation was found in the target.
    public var foundCoreFoundation: Bool
    /// CoreFoundation was looked for and is absent.
    public var lacksCoreFoundation: Bool
    /// A run loop observer was installed.
    public var observerInstalled: Bool
    /// A loop could not be observed because every slot was taken.
    public var slotsExhausted: Bool
    /// CoreFoundation refused to create an observer.
    public var installFailed: Bool
    /// Probes that found a channel of another version.
    public var versionMismatches: UInt32
    /// A process could not be listed because the process table was full.
    public var processesExhausted = false

    public init(
        preloadLoaded: Bool = false, agentCalled: Bool = false, foundCoreFoundation: Bool = false,
        lacksCoreFoundation: Bool = false, observerInstalled: Bool = false, slotsExhausted: Bool = false,
        installFailed: Bool = false, versionMismatches: UInt32 = 0, processesExhausted: Bool = false
    ) {
        self.preloadLoaded = preloadLoaded
        self.agentCalled = agentCalled
        self.foundCoreFoundation = foundCoreFoundation
        self.lacksCoreFoundation = lacksCoreFoundation
        self.observerInstalled = observerInstalled
        self.slotsExhausted = slotsExhausted
        self.installFailed = installFailed
        self.versionMismatches = versionMismatches
        self.processesExhausted = processesExhausted
    }
}
