import Amplify
import AmplifyPlugins
import AmplifyServiceLifecycle
import Foundation
import Logging
import ServiceLifecycle

/// Reads one `Authorization` header value per line of standard input (as a server gets them with
/// requests) and prints the gate's decision for each, as a service under a `ServiceGroup` beside
/// `AmplifyService`: at the end of input, or on SIGTERM or SIGINT, the group shuts down
/// gracefully and `AmplifyService` shuts Amplify down.
///
///     AMPLIFY_CONFIG=amplifyconfiguration.json swift run TokenGate < headers.txt
@main
enum TokenGateExample {
    static func main() async throws {
        Amplify.registerBuiltInPlugins()
        let amplify = try AmplifyService()
        let gate = try GateService(gate: TokenGate())
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [
                    .init(service: amplify),
                    // The end of input ends the server: the group shuts down gracefully.
                    .init(service: gate, successTerminationBehavior: .gracefullyShutdownGroup),
                ],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: Logger(label: "token-gate")))
        try await group.run()
    }
}

/// The server's work: a decision per header line, until the input ends or the group shuts down.
struct GateService: Service {
    let gate: TokenGate

    func run() async throws {
        let (lines, continuation) = AsyncStream<String>.makeStream()
        // readLine blocks: it runs on a thread of its own, not on the tasks' threads.
        let reader = Thread {
            while let line = readLine(strippingNewline: true) { continuation.yield(line) }
            continuation.finish()
        }
        reader.start()
        for await line in lines.cancelOnGracefulShutdown() {
            let decision = await gate.decide(authorization: line.isEmpty ? nil : line)
            FileHandle.standardOutput.write(Data("\(decision)\n".utf8))
        }
    }
}
