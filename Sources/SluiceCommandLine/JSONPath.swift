/// httpie's nested JSON items: a field's name is a path into the body's object. `user[name]=Bob`
/// sets a key of an object, `tags[]=a` appends to an array, `list[2]:=3` sets an index (the gaps
/// are `null`), and a backslash keeps a bracket in a key (`a\[b]=1`). A name set twice keeps its
/// first place and its last value, as in httpie.
///
/// ```swift
/// var body = JSONPath.Object()
/// try body.set("user[name]", to: #""Bob""#, item: "user[name]=Bob")
/// try body.set("tags[]", to: #""a""#, item: "tags[]=a")
/// body.text   // {"user": {"name": "Bob"}, "tags": ["a"]}
/// ```
enum JSONPath {
    /// One step of a path.
    enum Step: Equatable {
        case key(String)
        case append
        case index(Int)
    }

    /// The largest index a `[N]` step may name: the gaps before it are filled, so it is bounded.
    static let maximumIndex = 10_000

    /// A value of the body being built, keys in the order they were first set.
    indirect enum Node {
        case object([(String, Node)])
        case array([Node])
        case raw(String)  // JSON text, already checked

        var kind: String {
            switch self {
            case .object: "an object"
            case .array: "an array"
            case .raw(let text): text.hasPrefix("\"") ? "a string" : "a JSON value"
            }
        }

        var text: String {
            switch self {
            case .raw(let text): text
            case .array(let items): "[" + items.map(\.text).joined(separator: ", ") + "]"
            case .object(let pairs): "{" + pairs.map { SluiceCommand.jsonString($0.0) + ": " + $0.1.text }.joined(separator: ", ") + "}"
            }
        }
    }

    /// The body's top-level object.
    struct Object {
        var root = Node.object([])

        var text: String { root.text }

        /// Sets the value at `name`'s path to `json`; `item` is named in an error.
        mutating func set(_ name: String, to json: String, item: String) throws(UsageError) {
            let steps = try JSONPath.steps(of: name, item: item)
            root = try JSONPath.setting(root, steps[...], to: json, item: item, at: "")
        }
    }

    /// `user[name][]` → `[.key("user"), .key("name"), .append]`.
    static func steps(of name: String, item: String) throws(UsageError) -> [Step] {
        var steps: [Step] = []
        var current = ""
        var characters = name[...]
        var first = true
        func bad(_ why: String) -> UsageError { UsageError("\(String(reflecting: item)): \(why)") }
        while let character = characters.popFirst() {
            if character == "\\", let next = characters.first, next == "[" || next == "]" || next == "\\" {
                current.append(next)
                characters.removeFirst()
            } else if character == "[" {
                if first {
                    guard !current.isEmpty else { throw bad("a path starts with a key, as in user[name]") }
                    steps.append(.key(current))
                    first = false
                } else if !current.isEmpty {
                    throw bad("text between ] and [ in the path")
                }
                guard let close = characters.firstIndex(of: "]") else { throw bad("a [ without its ]") }
                let inside = String(characters[..<close])
                characters = characters[characters.index(after: close)...]
                current = ""
                if inside.isEmpty {
                    steps.append(.append)
                } else if inside.allSatisfy(\.isASCII), inside.allSatisfy(\.isNumber), let index = Int(inside) {
                    guard index <= maximumIndex else { throw bad("index \(inside) is over \(maximumIndex)") }
                    steps.append(.index(index))
                } else {
                    steps.append(.key(inside))
                }
                continue
            } else if !first {
                throw bad("text after ] in the path; a key is written [key]")
            } else {
                current.append(character)
            }
        }
        if first { steps.append(.key(current)) }
        return steps
    }

    /// `node` with `json` at the end of `steps`.
    static func setting(_ node: Node, _ steps: ArraySlice<Step>, to json: String, item: String, at path: String) throws(UsageError) -> Node {
        guard let step = steps.first else { return .raw(json) }
        let rest = steps.dropFirst()
        func child(_ existing: Node?, _ name: String) throws(UsageError) -> Node {
            let fresh: Node = rest.first.map { if case .key = $0 { .object([]) } else { .array([]) } } ?? .raw(json)
            guard let existing else { return rest.isEmpty ? .raw(json) : try setting(fresh, rest, to: json, item: item, at: name) }
            return try setting(existing, rest, to: json, item: item, at: name)
        }
        switch (step, node) {
        case (.key(let key), .object(var pairs)):
            let name = path.isEmpty ? key : "\(path)[\(key)]"
            if let index = pairs.firstIndex(where: { $0.0 == key }) {
                pairs[index].1 = rest.isEmpty ? .raw(json) : try child(pairs[index].1, name)
            } else {
                pairs.append((key, try child(nil, name)))
            }
            return .object(pairs)
        case (.append, .array(var items)):
            items.append(try child(nil, path + "[]"))
            return .array(items)
        case (.index(let index), .array(var items)):
            while items.count <= index { items.append(.raw("null")) }
            let existing: Node? = if case .raw("null") = items[index] { nil } else { items[index] }
            items[index] = rest.isEmpty ? .raw(json) : try child(existing, "\(path)[\(index)]")
            return .array(items)
        case (.key, _):
            throw UsageError("\(String(reflecting: item)): \(path) is \(node.kind), so it has no keys")
        case (.append, _), (.index, _):
            throw UsageError("\(String(reflecting: item)): \(path) is \(node.kind), not an array")
        }
    }
}
