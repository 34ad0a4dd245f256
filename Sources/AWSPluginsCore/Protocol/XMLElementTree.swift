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
    /// - Throws: ``AWSPluginsError`` (`MalformedXML`) with the parser's line and message when
    ///   `data` is not well-formed XML.
    public static func parse(_ data: Data) throws -> XMLElementTree {
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
