/// How a loop is observed, as reports name it (`loops[].observer`, `stalls[].observer`).
public enum LoopObserver {
    /// Swift's main actor: each job it runs off the main thread is one iteration.
    public static let swiftMainActor = "swift-main-actor"
    /// A thread of Swift's cooperative pool: each job it runs is one iteration.
    public static let swiftPool = "swift-pool"
}
