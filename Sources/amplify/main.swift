import Foundation

// The `amplify` command-line tool: see `amplify --help`.
let code = await CommandLineTool.run(Array(CommandLine.arguments.dropFirst()))
exit(code)
