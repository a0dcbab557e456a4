/// How the unwind of one sample ended.
public enum UnwindOutcome: String, Codable, Sendable {
    /// It reached the thread's entry (the outermost frame): the stack is whole.
    case complete
    /// It stopped at the depth cap (128 frames).
    case truncated
    /// libunwind could not go further (missing unwind information, unreadable memory), or it
    /// followed junk: an address outside executable memory (StackPlausibility).
    case failed
}
