/// How the target ended.
public enum TargetExit: Sendable, Equatable {
    /// It exited with this code.
    case exited(Int32)
    /// A signal killed it.
    case signaled(Int32)

    /// The status lagmon passes on: the code, or 128 + the signal number.
    public var passThroughStatus: Int32 {
        switch self {
        case .exited(let code): code
        case .signaled(let signal): 128 + signal
        }
    }
}
