import Amplify
import AmplifyPlugins
import Foundation

/// Reads one `Authorization` header value per line of standard input (as a server gets them with
/// requests) and prints the gate's decision for each.
///
///     AMPLIFY_CONFIG=amplifyconfiguration.json swift run TokenGate < headers.txt
@main
enum TokenGateExample {
    static func main() async throws {
        Amplify.registerBuiltInPlugins()
        try Amplify.configure()
        let gate = try TokenGate()
        while let line = readLine(strippingNewline: true) {
            let decision = await gate.decide(authorization: line.isEmpty ? nil : line)
            FileHandle.standardOutput.write(Data("\(decision)\n".utf8))
        }
        await Amplify.reset()
    }
}
