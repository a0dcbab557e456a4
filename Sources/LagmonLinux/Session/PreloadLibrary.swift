import Glibc

/// Finds the LD_PRELOAD probe library lagmon injects into targets.
public enum PreloadLibrary {
    /// File name SwiftPM gives the LagmonPreload product.
    public static let fileName = "libLagmonPreload.so"

    /// `LAGMON_PRELOAD_LIBRARY` if set, else the library found from the running lagmon binary
    /// (`candidates(executableDirectory:)`).
    public static func locate(environment: [String: String]) -> String? {
        if let explicit = environment["LAGMON_PRELOAD_LIBRARY"], !explicit.isEmpty {
            return access(explicit, R_OK) == 0 ? explicit : nil
        }
        guard let executable = executablePath(), let slash = executable.lastIndex(of: "/") else { return nil }
        return candidates(executableDirectory: String(executable[..<slash])).first { access($0, R_OK) == 0 }
    }

    /// Where the probe sits relative to lagmon's own directory (/proc/self/exe, links resolved):
    /// beside it in a build tree (.build/release/), in `../lib/lagmon/` in an installed or
    /// unpacked tree (/usr/bin → /usr/lib/lagmon), wherever that tree was moved.
    public static func candidates(executableDirectory directory: String) -> [String] {
        let parent = directory.lastIndex(of: "/").map { String(directory[..<$0]) } ?? ""
        return [directory + "/" + fileName, parent + "/lib/lagmon/" + fileName]
    }

    private static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
