/// The string table, mappings, functions and locations of a pprof profile, by first use; ids
/// from 1 (0 means "none" in profile.proto).
struct PprofTables {
    /// A function: its name and source file.
    struct FunctionKey: Hashable {
        var name: String
        var file: String
    }

    /// A location: an address in a process, a place in interpreted or JIT-compiled code (Python
    /// frames all have address 0; a JIT address can be reused for other code), or a synthetic one
    /// named by its function.
    enum LocationKey: Hashable {
        case address(pid: Int32, address: UInt64)
        case source(pid: Int32, address: UInt64, function: String, file: String, line: Int)
        case placeholder(String)
    }

    /// A location's fields.
    struct Location {
        var mapping: UInt64
        var address: UInt64
        var function: UInt64
        var line: Int64
    }

    /// The mappings frames may lie in.
    let images: [ImageMapping]
    private(set) var strings = [""]
    private var stringIndex = ["": 0]
    private var mappingIDs: [ImageMapping: UInt64] = [:]
    private var mappingOrder: [ImageMapping] = []
    private var functionIDs: [FunctionKey: UInt64] = [:]
    private var functionOrder: [FunctionKey] = []
    private var locationIDs: [LocationKey: UInt64] = [:]
    private var locationOrder: [Location] = []

    init(images: [ImageMapping]) {
        self.images = images
    }

    mutating func string(_ text: String) -> Int64 {
        if let index = stringIndex[text] { return Int64(index) }
        stringIndex[text] = strings.count
        strings.append(text)
        return Int64(strings.count - 1)
    }

    /// The location of `frame` in process `pid`: its address, mapping, function and line.
    mutating func location(of frame: Frame, pid: Int32) -> UInt64 {
        let key =
            frame.runtime == nil
            ? LocationKey.address(pid: pid, address: frame.address)
            : .source(
                pid: pid, address: frame.address, function: frame.groupName, file: frame.file ?? "",
                line: frame.line ?? 0)
        if let id = locationIDs[key] { return id }
        let image = images.first { $0.contains(frame.address, pid: pid) && $0.module == frame.module }
        let location = Location(
            mapping: image.map { mapping($0) } ?? 0, address: frame.address,
            function: function(FunctionKey(name: frame.groupName, file: frame.file ?? "")),
            line: Int64(frame.line ?? 0))
        return add(location, key: key)
    }

    /// A location standing for samples without a stack of their own, named `name`.
    mutating func placeholder(_ name: String) -> UInt64 {
        let key = LocationKey.placeholder(name)
        if let id = locationIDs[key] { return id }
        return add(
            Location(mapping: 0, address: 0, function: function(FunctionKey(name: name, file: "")), line: 0), key: key)
    }

    private mutating func add(_ location: Location, key: LocationKey) -> UInt64 {
        locationOrder.append(location)
        locationIDs[key] = UInt64(locationOrder.count)
        return UInt64(locationOrder.count)
    }

    private mutating func mapping(_ image: ImageMapping) -> UInt64 {
        if let id = mappingIDs[image] { return id }
        mappingOrder.append(image)
        mappingIDs[image] = UInt64(mappingOrder.count)
        _ = string(image.path)
        _ = string(image.buildId ?? "")
        return UInt64(mappingOrder.count)
    }

    private mutating func function(_ key: FunctionKey) -> UInt64 {
        if let id = functionIDs[key] { return id }
        functionOrder.append(key)
        functionIDs[key] = UInt64(functionOrder.count)
        _ = string(key.name)
        _ = string(key.file)
        return UInt64(functionOrder.count)
    }

    /// Mappings (3), locations (4), functions (5) and the string table (6).
    func encode(into profile: inout ProtobufEncoder) {
        for (index, image) in mappingOrder.enumerated() {
            profile.message(3) { mapping in
                mapping.uint64(1, UInt64(index + 1))
                mapping.uint64(2, image.start)
                mapping.uint64(3, image.limit)
                mapping.uint64(4, image.fileOffset)
                mapping.int64(5, Int64(stringIndex[image.path] ?? 0))
                mapping.int64(6, Int64(stringIndex[image.buildId ?? ""] ?? 0))
                mapping.bool(7, true)
                mapping.bool(8, true)
                mapping.bool(9, true)
            }
        }
        for (index, location) in locationOrder.enumerated() {
            profile.message(4) { encoder in
                encoder.uint64(1, UInt64(index + 1))
                encoder.uint64(2, location.mapping)
                encoder.uint64(3, location.address)
                encoder.message(4) { line in
                    line.uint64(1, location.function)
                    line.int64(2, location.line)
                }
            }
        }
        for (index, key) in functionOrder.enumerated() {
            let name = Int64(stringIndex[key.name] ?? 0)
            profile.message(5) { function in
                function.uint64(1, UInt64(index + 1))
                function.int64(2, name)
                function.int64(3, name)
                function.int64(4, Int64(stringIndex[key.file] ?? 0))
            }
        }
        for text in strings { profile.string(6, text) }
    }
}
