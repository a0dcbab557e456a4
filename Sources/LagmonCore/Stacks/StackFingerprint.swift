/// Identifies stalls that ran the same code: a few frames near the culprit as
/// `module`symbol` strings, and a stable hash of them. Addresses and offsets of symbolized
/// frames never take part, so the same code stalling in another run, or at another call site
/// inside the same functions, gets the same fingerprint.
public struct StackFingerprint: Hashable, Sendable {
    /// How many frames define a fingerprint.
    public static let frameCount = 3

    /// The hash of `frames`: FNV-1a 64 over their UTF-8 joined by newlines, 16 lowercase hex
    /// digits.
    public var id: String
    /// The defining frames, innermost first, as `module`symbol` (`module`0x1a2b` without a
    /// symbol).
    public var frames: [String]

    public init(frames: [String]) {
        self.frames = frames
        id = Self.hexadecimal(Self.fnv1a64(frames.joined(separator: "\n")))
    }

    /// The fingerprint of a stack read innermost first from `anchor`: its first
    /// `frameCount` distinct application frames, or, when it has none, its first `frameCount`
    /// distinct frames. Nil for an empty stack.
    public init?(anchor frames: some Sequence<Frame>) {
        var application: [FrameIdentity] = []
        var any: [FrameIdentity] = []
        for identity in frames.lazy.map(FrameIdentity.init) {
            if application.count < Self.frameCount, identity.isApplication, !application.contains(identity) {
                application.append(identity)
            }
            if any.count < Self.frameCount, !any.contains(identity) { any.append(identity) }
        }
        let chosen = application.isEmpty ? any : application
        guard !chosen.isEmpty else { return nil }
        self.init(frames: chosen.map(\.text))
    }

    static func fnv1a64(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }

    private static func hexadecimal(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
