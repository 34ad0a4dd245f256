import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// One element of an XML document (REST-XML answers from S3), read with Foundation's
/// `XMLParser` (libxml2 underneath): its name without namespace prefix, its text, and its child
/// elements in document order.
public struct XMLElementTree: Sendable, Equatable {
    /// The element's local name (`ListBucketResult`, `Contents`, `Key`).
    public var name: String
    /// The text directly inside the element (entities decoded), empty for an element with only
    /// children.
    public var text: String
    /// The child elements in document order.
    public var children: [XMLElementTree]

    /// An element.
    public init(name: String, text: String = "", children: [XMLElementTree] = []) {
        self.name = name
        self.text = text
        self.children = children
    }

    /// The first child called `name`.
    public func child(_ name: String) -> XMLElementTree? {
        children.first { $0.name == name }
    }

    /// Every child called `name`, in document order.
    public func children(named name: String) -> [XMLElementTree] {
        children.filter { $0.name == name }
    }

    /// The text of the first child called `name`, or `nil` when there is no such child.
    public func text(of name: String) -> String? {
        child(name)?.text
    }

    /// Parses `data` and returns its root element.
    ///
    /// AWS answers in UTF-8 with no DTD and no processing instruction but the XML declaration,
    /// and only such answers are read: anything else is refused before the parser sees it.
    /// Foundation's `XMLParser` crashes the process on an element name that is not UTF-8, on a
    /// processing instruction without data (`<?x?>`) and on DTD notations and unparsed
    /// entities, all found by the s3xml fuzzer; refusing DTDs also keeps entity expansion out.
    ///
    /// - Throws: ``AWSPluginsError`` (`MalformedXML`) with the parser's line and message when
    ///   `data` is not well-formed XML, or with what it holds that no AWS answer does.
    public static func parse(_ data: Data) throws -> XMLElementTree {
        if let refusal = refusal(of: Array(data)) {
            throw AWSPluginsError(
                code: "MalformedXML", "The service's XML answer (\(data.count) bytes) \(refusal), which no AWS answer does.",
                "This is a bug in the service or a proxy in between; the raw answer is in the debug log.")
        }
        let builder = TreeBuilder()
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        parser.delegate = builder
        guard parser.parse(), let root = builder.root else {
            let reason = parser.parserError.map { "\($0.localizedDescription)" } ?? "no root element"
            throw AWSPluginsError(
                code: "MalformedXML", "The service's XML answer could not be read at line \(parser.lineNumber): \(reason).",
                "This is a bug in the service or a proxy in between; the raw answer is in the debug log.")
        }
        return root
    }
}

extension XMLElementTree {
    /// Why `bytes` is not read (`nil`: it may be): not UTF-8, a DTD, or a processing instruction
    /// other than a leading XML declaration. A `<?` or `<!DOCTYPE` inside a comment or CDATA is
    /// refused too: simpler than parsing, and AWS sends neither.
    static func refusal(of bytes: [UInt8]) -> String? {
        guard String(validating: bytes, as: UTF8.self) != nil else { return "is not UTF-8" }
        var start = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        while start < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) { start += 1 }
        // The XML declaration, if the document starts with one (`<?xml` and a space: `<?xmlRules?>`
        // is an instruction), ends at its first `?>`.
        let declaration = Array("<?xml".utf8)
        if bytes[start...].starts(with: declaration), start + declaration.count < bytes.count,
            [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start + declaration.count]),
            let end = find(Array("?>".utf8), in: bytes, from: start)
        {
            // Its attributes hold no `<` or `>`: one that does was left open, and the `?>` found
            // belongs to something after it.
            guard !bytes[(start + declaration.count)..<end].contains(where: { $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") }) else {
                return "holds a processing instruction"
            }
            start = end + 2
        }
        if find(Array("<?".utf8), in: bytes, from: start) != nil { return "holds a processing instruction" }
        if find(Array("<!DOCTYPE".utf8), in: bytes, from: start) != nil { return "holds a DTD" }
        return nil
    }

    /// The index where `needle` first occurs in `bytes` at or after `from`.
    private static func find(_ needle: [UInt8], in bytes: [UInt8], from: Int) -> Int? {
        guard let first = needle.first, bytes.count >= needle.count else { return nil }
        var index = from
        while index <= bytes.count - needle.count {
            if bytes[index] == first, bytes[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}

/// Builds the tree from the parser's callbacks (used by one parse on one thread).
private final class TreeBuilder: NSObject, XMLParserDelegate {
    var stack: [XMLElementTree] = []
    var root: XMLElementTree?

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
        qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
    ) {
        stack.append(XMLElementTree(name: elementName))
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text += string
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text += String(decoding: CDATABlock, as: UTF8.self)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        guard var finished = stack.popLast() else { return }
        if !finished.children.isEmpty, finished.text.allSatisfy(\.isWhitespace) { finished.text = "" }
        if stack.isEmpty {
            root = finished
        } else {
            stack[stack.count - 1].children.append(finished)
        }
    }
}
