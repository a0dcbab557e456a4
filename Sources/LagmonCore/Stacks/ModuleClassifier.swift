/// Tells the program's own code from the system's: a module (an image's file name) is *system*
/// when it belongs to the C library, the loader, the C++ and Swift runtimes, Foundation,
/// CoreFoundation, ICU, the vDSO or lagmon's own preload probe, and *application* otherwise.
///
/// Culprits, fingerprints and the terminal's highlighting prefer application frames: a stall
/// "in `memcpy`" says little, the application function that called it says what to fix.
public enum ModuleClassifier {
    /// Exact library names (without `.so` and version), compared after stripping those.
    private static let systemLibraries: Set<String> = [
        // glibc and its satellites; `ld` is the old `ld-2.31.so` spelling of the loader.
        "libc", "libm", "libpthread", "libdl", "librt", "libutil", "libresolv", "libanl", "libmvec", "ld",
        // Compiler runtimes under C and C++ code.
        "libgcc_s", "libstdc++", "libatomic", "libc++", "libc++abi",
        // Swift on Linux: Dispatch and the blocks runtime it needs.
        "libdispatch", "libBlocksRuntime", "lib_FoundationICU",
        // The JDK's runtime (HotSpot and the libraries under java.*): the program's Java
        // methods say more.
        "libjvm", "libjava", "libnio", "libnet", "libjli", "libjimage", "libzip", "libverify", "libextnet",
        // lagmon's own LD_PRELOAD probe, which wraps the target's waits.
        "libLagmonPreload",
    ]

    /// Prefixes of library names (`libswiftCore`, `libFoundationEssentials`, `libicuuc`).
    private static let systemPrefixes = [
        "ld-linux", "linux-vdso", "linux-gate", "libswift", "libFoundation", "libCoreFoundation", "libicu",
    ]

    /// Whether `module` is the system's or the runtime's rather than the application's.
    /// Pseudo-modules count as system: no file (`?`, the empty name) and the kernel's bracketed
    /// mappings (`[vdso]`, also `[heap]` and `[stack]`, where only unsymbolized generated code
    /// runs: its caller says more).
    public static func isSystem(_ module: String) -> Bool {
        if module.isEmpty || module == "?" || module.hasPrefix("[") { return true }
        let name = fileName(module)
        let library = libraryName(name)
        return systemLibraries.contains(library) || systemPrefixes.contains { library.hasPrefix($0) }
    }

    /// Whether an interpreted frame's source file is the user's own: Python outside the standard
    /// library (`…/lib/python3.X/`), site-packages, dist-packages and frozen modules; JavaScript
    /// outside node's own `node:` modules and V8's internals.
    public static func isApplicationSource(_ file: String, runtime: FrameRuntime) -> Bool {
        switch runtime {
        case .python:
            if file.hasPrefix("<") || file.contains("/site-packages/") || file.contains("/dist-packages/") {
                return false
            }
            guard let library = file.firstRange(of: "/lib/python") else { return true }
            return !(file[library.upperBound...].first?.isNumber ?? false)
        case .javascript:
            return !(file.isEmpty || file.hasPrefix("node:") || file.hasPrefix("internal/"))
        // Java: the JDK's classes are marked `Frame.isLibrary` instead (the module is `[jit]`).
        case .jit, .java: return true
        }
    }

    /// Whether `module` is the application's own code (the executable or one of its libraries).
    public static func isApplication(_ module: String) -> Bool {
        !isSystem(module)
    }

    /// The last path component: reports carry file names, but a full path classifies the same.
    private static func fileName(_ module: String) -> String {
        guard let slash = module.lastIndex(of: "/") else { return module }
        return String(module[module.index(after: slash)...])
    }

    /// `libc.so.6` → `libc`, `libpthread-2.31.so` → `libpthread`, `lagmon-demo` unchanged.
    private static func libraryName(_ name: String) -> String {
        var stem = Substring(name)
        for so in name.ranges(of: ".so") where so.upperBound == name.endIndex || name[so.upperBound] == "." {
            stem = name[..<so.lowerBound]
            break
        }
        // Old glibc names carry the version before `.so`: `libc-2.31`, `ld-2.31`.
        if let dash = stem.lastIndex(of: "-") {
            let version = stem[stem.index(after: dash)...]
            if !version.isEmpty, version.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) {
                stem = stem[..<dash]
            }
        }
        return String(stem)
    }
}
