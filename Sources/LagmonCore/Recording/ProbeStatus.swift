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
    /// Loops that found every slot taken and were not observed (each counted once).
    public var refusedLoops = 0
    /// Loops the channel can hold, for every process of the session (0 when unknown).
    public var slotCapacity = 0

    public init(
        preloadLoaded: Bool = false, agentCalled: Bool = false, foundCoreFoundation: Bool = false,
        lacksCoreFoundation: Bool = false, observerInstalled: Bool = false, slotsExhausted: Bool = false,
        installFailed: Bool = false, versionMismatches: UInt32 = 0, processesExhausted: Bool = false,
        refusedLoops: Int = 0, slotCapacity: Int = 0
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
        self.refusedLoops = refusedLoops
        self.slotCapacity = slotCapacity
    }
}
