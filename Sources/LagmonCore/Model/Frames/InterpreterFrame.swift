/// One frame of interpreted code (a Python function) as read from the target's memory while its
/// thread was stopped, innermost first in `StackSample.interpreterFrames`.
public struct InterpreterFrame: Sendable, Equatable {
    /// The function (`parse_feed`; qualified, `Feed.parse`, on Python 3.11+).
    public var function: String
    /// The source file, as the interpreter knows it (`co_filename`).
    public var file: String
    /// The line executing (or calling the next frame); nil when the line table has none.
    public var line: Int?
    /// Whether this is the outermost frame its interpreter entry (one native
    /// `_PyEval_EvalFrameDefault` call) runs: the frames from the previous entry to this one
    /// replace that native frame in the merged stack.
    public var endsEntry: Bool

    public init(function: String, file: String, line: Int?, endsEntry: Bool) {
        self.function = function
        self.file = file
        self.line = line
        self.endsEntry = endsEntry
    }
}
