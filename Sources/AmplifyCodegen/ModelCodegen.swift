import AmplifyCrypto

/// Swift models from a model introspection, as the Amplify CLI writes them: what
/// `amplify codegen models` and its build-tool plugin run.
package enum ModelCodegen {
    /// The files for the introspection in `bytes` (an `amplify_outputs.json` or the introspection
    /// itself), by name, in the order the CLI lists them.
    /// - Throws: ``CodegenError`` saying what is missing or malformed, and where.
    package static func files(from bytes: [UInt8]) throws -> [(name: String, text: String)] {
        let introspection = try ModelIntrospection(json: OrderedJSON.parse(bytes))
        let version = Digest.sha256(bytes).prefix(16).map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }.joined()
        return SwiftModelWriter(introspection: introspection, version: version).files()
    }
}
