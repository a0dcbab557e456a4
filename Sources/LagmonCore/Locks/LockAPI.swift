/// The lock function a waiting thread's frames show it in: glibc's mutex, rwlock, condition
/// variable and semaphore calls, and Swift's `Mutex`. Confirms (or overrules) what the lock's
/// memory looked like (`LockLayout`).
public enum LockAPI: String, Sendable, Hashable {
    case mutex, rwlock, conditionVariable, semaphore, swiftMutex

    /// Frames searched from the innermost outwards: the lock call sits near the top.
    static let framesSearched = 16

    /// The lock call among the innermost frames, if any.
    public static func of(_ frames: [Frame]) -> LockAPI? {
        for frame in frames.prefix(framesSearched) {
            guard let symbol = frame.symbol else { continue }
            if let api = of(symbol: symbol, module: frame.module) { return api }
        }
        return nil
    }

    static func of(symbol: String, module: String) -> LockAPI? {
        if symbol.contains("pthread_cond_") { return .conditionVariable }
        if symbol.contains("pthread_rwlock_") { return .rwlock }
        if symbol.contains("pthread_mutex_") || symbol.contains("lll_lock_wait") { return .mutex }
        if symbol.hasPrefix("sem_") || symbol.contains("new_sem_wait") { return .semaphore }
        if module.hasPrefix("libswiftSynchronization") || symbol.contains("_MutexHandle") { return .swiftMutex }
        return nil
    }

    /// The kind the report names: the frames' call, refined by the memory's layout where they
    /// agree (a recursive mutex), the layout alone without a call.
    static func kind(api: LockAPI?, layout: LockLayout) -> String {
        switch api {
        case .conditionVariable: return "condition variable"
        case .semaphore: return "semaphore"
        case .swiftMutex: return "Swift Mutex"
        case .rwlock: return "rwlock"
        case .mutex: return layout == .priorityInheritance ? "PI mutex" : layoutName(layout, or: "mutex")
        case nil: return layoutName(layout, or: "futex")
        }
    }

    private static func layoutName(_ layout: LockLayout, or fallback: String) -> String {
        switch layout {
        case .normalMutex: return "mutex"
        case .recursiveMutex: return "recursive mutex"
        case .errorCheckMutex: return "error-checking mutex"
        case .adaptiveMutex: return "adaptive mutex"
        case .priorityInheritance: return "PI lock"
        case .rwlockWriter, .rwlockReaders: return "rwlock"
        case .unrecognized: return fallback
        }
    }

    /// Why no owner can be named when the call or the layout says the lock records none, or the
    /// two disagree; nil when an owner may be named.
    static func noOwnerReason(api: LockAPI?, layout: LockLayout) -> String? {
        switch api {
        case .conditionVariable: return "condition variables record no owner"
        case .semaphore: return "semaphores record no owner"
        case .mutex
        where ![.normalMutex, .recursiveMutex, .errorCheckMutex, .adaptiveMutex, .priorityInheritance]
            .contains(layout):
            return "the mutex's memory did not match glibc's layout"
        case .rwlock where layout != .rwlockWriter && layout != .rwlockReaders:
            return "the rwlock's memory did not match glibc's layout"
        case .swiftMutex where layout != .priorityInheritance:
            return "the Mutex's memory did not match its layout"
        default: return layout == .unrecognized ? "no owner recorded" : nil
        }
    }
}
