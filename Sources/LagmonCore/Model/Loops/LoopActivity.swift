/// A run loop's activity, as its observer last reported it.
///
/// Raw values are CoreFoundation's `CFRunLoopActivity` bits, which the channel stores as is.
public enum LoopActivity: UInt32, Codable, Sendable, CaseIterable {
    /// No transition observed yet.
    case none = 0
    /// The loop was entered.
    case entry = 1
    /// The loop is about to handle timers.
    case beforeTimers = 2
    /// The loop is about to handle version-0 sources (and runs their callbacks).
    case beforeSources = 4
    /// The loop is about to sleep.
    case beforeWaiting = 32
    /// The loop woke up and handles what woke it.
    case afterWaiting = 64
    /// The loop returned.
    case exit = 128

    /// Creates an activity from the channel's raw bits; unknown bits read as `.none`.
    public init(bits: UInt32) {
        self = LoopActivity(rawValue: bits) ?? .none
    }

    /// Whether staying in this activity past the threshold is a stall.
    public var isStalling: Bool { self == .beforeSources || self == .afterWaiting }

    /// Whether the loop is asleep or outside the loop: nothing can stall until it wakes.
    public var isIdle: Bool { self == .beforeWaiting || self == .exit || self == .none }

    /// The name used in reports (`beforeSources`, `afterWaiting`, …).
    public var name: String {
        switch self {
        case .none: "none"
        case .entry: "entry"
        case .beforeTimers: "beforeTimers"
        case .beforeSources: "beforeSources"
        case .beforeWaiting: "beforeWaiting"
        case .afterWaiting: "afterWaiting"
        case .exit: "exit"
        }
    }
}
