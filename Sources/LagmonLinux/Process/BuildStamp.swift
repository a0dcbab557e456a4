import CLagmonLinux
import LagmonCore

/// What lagmon says of its own build: the version, and the commit a release was stamped with.
public enum BuildStamp {
    /// The commit `make install`/`make package` wrote into the binary (scripts/install), or nil
    /// in a build that was never stamped (`swift build`, the tests).
    public static let commit: String? = {
        guard let bytes = lagmon_build_stamp() else { return nil }
        let buffer = UnsafeBufferPointer(
            start: UnsafeRawPointer(bytes).assumingMemoryBound(to: UInt8.self), count: Int(LAGMON_BUILD_STAMP_SIZE))
        return parse(Array(buffer))
    }()

    /// The commit in `bytes` (the section's contents): text up to the first NUL, made only of
    /// what `git describe`-like names hold (letters, digits, `.`, `-`, `+`, `_`); nil otherwise.
    static func parse(_ bytes: [UInt8]) -> String? {
        let text = bytes.prefix { $0 != 0 }
        let allowed = text.allSatisfy { byte in
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || Array("._-+".utf8).contains(byte)
        }
        guard !text.isEmpty, allowed else { return nil }
        return String(decoding: text, as: UTF8.self)
    }

    /// `lagmon --version`: the version, then the commit when the binary was stamped with one.
    public static var versionLine: String {
        guard let commit else { return LagmonVersion.current }
        return "\(LagmonVersion.current) (commit \(commit))"
    }
}
