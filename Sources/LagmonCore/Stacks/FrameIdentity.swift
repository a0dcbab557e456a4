/// What makes two frames "the same function" for grouping: the module and the symbol; frames
/// without a symbol are one unknown function per module (`Frame.groupName`). Addresses never take
/// part, so identities are stable across runs (ASLR) and across call sites inside one function.
public struct FrameIdentity: Hashable, Comparable, Sendable {
    /// The image's file name.
    public var module: String
    /// The symbol, or `Frame.groupName` (`module+?`, `[unknown]`) when the frame has none.
    public var name: String

    /// The runtime of an interpreted frame (nil: native).
    public var runtime: FrameRuntime?
    /// A library's code inside an application image (`Frame.isLibrary`).
    public var isLibrary: Bool

    public init(_ frame: Frame) {
        module = frame.module
        name = frame.groupName
        runtime = frame.runtime
        isLibrary = frame.isLibrary == true
    }

    /// `module`name`, the form fingerprints list (`lagmon-demo`decodeImage(_:)`).
    public var text: String { "\(module)`\(name)" }

    /// Whether the frame belongs to the application rather than the system (ModuleClassifier)
    /// or a library compiled into it (a Rust dependency, the JDK's Java classes).
    public var isApplication: Bool {
        runtime.map { !isLibrary && ModuleClassifier.isApplicationSource(module, runtime: $0) }
            ?? (!isLibrary && ModuleClassifier.isApplication(module))
    }

    /// Whether the frame is the user's own interpreted code (a Python or JavaScript function
    /// outside the runtime's libraries): culprits prefer these to any native frame.
    public var isApplicationSource: Bool { runtime != nil && isApplication }

    public static func < (lhs: FrameIdentity, rhs: FrameIdentity) -> Bool {
        (lhs.module, lhs.name) < (rhs.module, rhs.name)
    }
}
