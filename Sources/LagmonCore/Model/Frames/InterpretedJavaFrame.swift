/// A frame of HotSpot's interpreter in a stack sample: which of `StackSample.addresses` it is,
/// and the Java method it ran, read from the interpreter frame in the target's memory
/// (`HotSpotMethodNames`).
public struct InterpretedJavaFrame: Sendable, Equatable {
    /// Its position in `StackSample.addresses` (innermost 0).
    public var index: Int
    /// `Class.method`; nil when the frame's method could not be read (`[interpreted Java]`).
    public var method: String?

    public init(index: Int, method: String?) {
        self.index = index
        self.method = method
    }
}
