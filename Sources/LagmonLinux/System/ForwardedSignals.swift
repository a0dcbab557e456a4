import Glibc

/// The signals lagmon takes on one thread and passes on to the target (SignalForwarder): every
/// other thread lagmon starts keeps them blocked, so none of them can be killed by one.
public enum ForwardedSignals {
    /// SIGINT, SIGTERM, SIGHUP and SIGQUIT.
    public static let all: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
}
