import Foundation
import Logging

// The `amplify` command-line tool: see `amplify --help`. Amplify's log messages (through its
// default swift-log plugin) go to standard error as plain lines; Amplify's level decides which
// (`--verbose` raises it to debug).
LoggingSystem.bootstrap { label in StandardErrorLogHandler(label: label) }
let code = await CommandLineTool.run(Array(CommandLine.arguments.dropFirst()))
exit(code)
