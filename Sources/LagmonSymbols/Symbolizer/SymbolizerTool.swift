import FoundationEssentials
import Glibc
import LagmonCore

/// The external program that adds file:line (and names from debug information) to what the ELF
/// symbol tables give: llvm-symbolizer (one process for every module), else binutils' addr2line
/// (one process per module), else none.
public enum SymbolizerTool: Equatable, Sendable {
    case llvmSymbolizer(path: String)
    case addr2line(path: String)
    /// ELF symbol tables only: names, no file:line.
    case none

    /// What one lookup gave: a linkage name (mangled) and a source position, each optional.
    struct Answer: Equatable {
        var name: String?
        var file: String?
        var line: Int?
    }

    /// The tool to use: `LAGMON_SYMBOLIZER` (a path, or a name looked up on PATH; `none`
    /// disables; a name containing `addr2line` is used as addr2line), else llvm-symbolizer next to the `swift` found on PATH,
    /// else llvm-symbolizer on PATH, else addr2line on PATH, else none.
    public static func locate(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        isExecutable: (String) -> Bool = { FileManager.default.isExecutableFile(atPath: $0) }
    ) -> SymbolizerTool {
        let path = (environment["PATH"] ?? "").split(separator: ":").map(String.init).filter { !$0.isEmpty }
        func onPath(_ name: String) -> String? {
            path.map { "\($0)/\(name)" }.first(where: isExecutable)
        }
        if let chosen = environment["LAGMON_SYMBOLIZER"], !chosen.isEmpty {
            if chosen == "none" { return .none }
            let found = chosen.contains("/") ? chosen : onPath(chosen) ?? chosen
            let name = PathText.lastComponent(found)
            return name.contains("addr2line") ? .addr2line(path: found) : .llvmSymbolizer(path: found)
        }
        if let swift = onPath("swift") {
            let directory = PathText.deletingLastComponent(resolvingSymlinks(swift))
            let candidate = directory + "/llvm-symbolizer"
            if isExecutable(candidate) { return .llvmSymbolizer(path: candidate) }
        }
        if let found = onPath("llvm-symbolizer") { return .llvmSymbolizer(path: found) }
        if let found = onPath("addr2line") { return .addr2line(path: found) }
        return .none
    }

    /// `/usr/bin/swift` → `/opt/swift/usr/bin/swift-driver` when it is a link into a toolchain;
    /// the path itself when it cannot be resolved.
    private static func resolvingSymlinks(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    // MARK: llvm-symbolizer

    /// Arguments for one llvm-symbolizer run over stdin: JSON lines, linkage names (lagmon
    /// demangles Swift and Rust itself), and the chain of inlined calls at the address, whose
    /// outermost entry is the physical function and its own line (`parseLLVMOutput`).
    static let llvmArguments = ["--output-style=JSON", "--no-demangle", "--inlines"]

    /// One stdin line: `"<path>" 0x<vaddr>` (quoted: paths may hold spaces). Nil for a path that
    /// cannot be quoted (a `"` or a newline in it).
    static func llvmInputLine(path: String, address: UInt64) -> String? {
        guard !path.contains("\""), !path.contains("\n") else { return nil }
        return "\"\(path)\" 0x\(String(address, radix: 16))\n"
    }

    /// The answers to the lines of one run, in input order; nil for a line without an answer
    /// (an error record, a truncated run). Line 0 and empty names mean unknown. Of an inline
    /// chain (innermost first) the last entry answers: the frame is the physical function, so its
    /// line is that function's, not that of a helper inlined into it (Rust's `wrapping_mul`).
    static func parseLLVMOutput(_ output: [UInt8], count: Int) -> [Answer?] {
        let decoder = JSONDecoder()
        var answers = output.split(separator: UInt8(ascii: "\n")).prefix(count).map { line -> Answer? in
            guard let record = try? decoder.decode(LLVMRecord.self, from: Data(line)),
                let symbol = record.symbol?.last
            else { return nil }
            return answer(name: symbol.functionName, file: symbol.fileName, line: symbol.line)
        }
        answers += Array(repeating: nil, count: max(0, count - answers.count))
        return answers
    }

    /// One JSON line of `--output-style=JSON`.
    private struct LLVMRecord: Decodable {
        var symbol: [LLVMSymbol]?
        enum CodingKeys: String, CodingKey { case symbol = "Symbol" }
    }

    private struct LLVMSymbol: Decodable {
        var functionName: String?
        var fileName: String?
        var line: Int?
        enum CodingKeys: String, CodingKey {
            case functionName = "FunctionName"
            case fileName = "FileName"
            case line = "Line"
        }
    }

    // MARK: addr2line

    /// Arguments for one addr2line run over the addresses of one module: function names (not
    /// demangled), then `file:line`.
    static func addr2lineArguments(path: String) -> [String] { ["-f", "-e", path] }

    /// addr2line prints two lines per address: the function (`??` when unknown) and
    /// `file:line` (`??:0`, `file:?`), sometimes followed by ` (discriminator n)`.
    static func parseAddr2lineOutput(_ output: [UInt8], count: Int) -> [Answer?] {
        let lines = String(decoding: output, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        return (0..<count).map { index in
            guard 2 * index + 1 < lines.count else { return nil }
            let position = lines[2 * index + 1].split(separator: " (discriminator").first ?? ""
            guard let colon = position.lastIndex(of: ":") else { return nil }
            return answer(
                name: String(lines[2 * index]), file: String(position[..<colon]),
                line: Int(position[position.index(after: colon)...]))
        }
    }

    /// Normalises both tools' "unknown" spellings to nil, and drops the symbol version a name
    /// from a full symbol table may carry (`__libc_start_main@GLIBC_2.2.5`).
    private static func answer(name: String?, file: String?, line: Int?) -> Answer? {
        let name = name.flatMap { $0.isEmpty || $0 == "??" ? nil : $0 }.map { name in
            name.firstIndex(of: "@").map { String(name[..<$0]) } ?? name
        }
        let known = (line ?? 0) > 0 && !(file ?? "").isEmpty && file != "??"
        guard name != nil || known else { return nil }
        return Answer(name: name, file: known ? file : nil, line: known ? line : nil)
    }
}
