import Glibc

/// Finds the LD_PRELOAD probe library lagmon injects into targets.
public enum PreloadLibrary {
    /// File name SwiftPM gives the LagmonPreload product.
    public static let fileName = "libLagmonPreload.so"

    /// `LAGMON_PRELOAD_LIBRARY` if set, else the library next to the running lagmon binary.
    public static func locate(environment: [String: String]) -> String? {
        if let explicit = environment["LAGMON_PRELOAD_LIBRARY"], !explicit.isEmpty {
            return access(explicit, R_OK) == 0 ? explicit : nil
        }
        guard let executable = executablePath(), let slash = executable.lastIndex(of: "/") else { return nil }
        let candidate = String(executable[..<slash]) + "/" + fileName
        return access(candidate, R_OK) == 0 ? candidate : nil
    }

    /// A path to `library` that the dynamic loader reads as one path.
    ///
    /// `LD_PRELOAD` is split at spaces and colons, with no way to escape them: the probe installed
    /// under `/opt/my tools/` would never load (and a relative name in the target's directory
    /// would be tried instead). Such a path is replaced by `/proc/<lagmon's pid>/fd/<n>`, a
    /// descriptor lagmon holds open on the library (close-on-exec: the target opens it through
    /// /proc, it does not inherit it) for the rest of its life, which is as long as the target
    /// and its children can start under this session. Any other path is returned unchanged.
    public static func loadablePath(_ library: String) throws -> String {
        guard library.utf8.contains(where: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: ":") }) else {
            return library
        }
        let fd = open(library, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError("open \(library)") }
        return "/proc/\(getpid())/fd/\(fd)"
    }

    private static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
