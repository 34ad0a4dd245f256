import AWSCognitoAuthPlugin
import Amplify
import Foundation

// amplify-swift's getting-started flow as a server runs it: add only the Cognito plugin,
// configure from the file the Amplify CLI wrote (whatever else it names: analytics, API, geo…),
// sign in, and say what was skipped.
//
//     AMPLIFY_CONFIG=amplifyconfiguration.json swift run CognitoQuickstart alice < password.txt
//
// The password comes from standard input (never argv).

let arguments = CommandLine.arguments.dropFirst()
guard let username = arguments.first else {
    FileHandle.standardError.write(Data("usage: CognitoQuickstart USERNAME < password\n".utf8))
    exit(2)
}
let password = readLine(strippingNewline: true) ?? ""

do {
    try Amplify.add(plugin: AWSCognitoAuthPlugin())
    try Amplify.configure()
    for finding in Amplify.configurationFindings {
        print("skipped \(finding.path)")
    }
    let result = try await Amplify.Auth.signIn(username: username, password: password)
    print("signed in: \(result.isSignedIn)")
    let user = try await Amplify.Auth.getCurrentUser()
    print("current user: \(user.username)")
    _ = await Amplify.Auth.signOut()
    await Amplify.reset()
} catch let error as any AmplifyError {
    FileHandle.standardError.write(Data("error: \(error.errorDescription)\nhow to fix: \(error.recoverySuggestion)\n".utf8))
    await Amplify.reset()
    exit(1)
}
