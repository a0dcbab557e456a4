/// How a loop is observed, as reports name it (`loops[].observer`, `stalls[].observer`).
public enum LoopObserver {
    /// Swift's main actor: each job it runs off the main thread is one iteration.
    public static let swiftMainActor = "swift-main-actor"
    /// A thread of Swift's cooperative pool: each job it runs is one iteration.
    public static let swiftPool = "swift-pool"
    /// A worker of a tokio runtime's pool: the busy time between two of its parks is one iteration.
    public static let tokioWorker = "tokio-worker"
}
