/// A thread that stayed at or above the alert level: raised while it happens, so a stack can
/// be taken at once.
public struct CPUAlertEvent: Sendable, Equatable {
    /// The busy thread.
    public var tid: Int32
    /// Its name when the alert fired.
    public var name: String
    /// The reading that completed the streak (channel clock).
    public var atNs: UInt64
    /// The alert as the report carries it (time since the target started, no frames yet).
    public var alert: CPUAlert

    public init(tid: Int32, name: String, atNs: UInt64, alert: CPUAlert) {
        self.tid = tid
        self.name = name
        self.atNs = atNs
        self.alert = alert
    }
}
