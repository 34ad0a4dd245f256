import Foundation

/// The keys of a named profile in `~/.aws/credentials` (`[name]`) or `~/.aws/config`
/// (`[profile name]`, `[default]`); the credentials file wins where both have the profile.
/// `AWS_PROFILE`, `AWS_SHARED_CREDENTIALS_FILE` and `AWS_CONFIG_FILE` change the defaults.
public struct ProfileCredentialsProvider: AWSCredentialsProvider {
    /// The profile's name.
    public let profile: String
    let credentialsFile: String
    let configFile: String

    /// The profile named by `AWS_PROFILE` (else `default`) in the usual files, or the ones the
    /// environment names.
    public init(profile: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment) {
        let home = environment["HOME"] ?? NSHomeDirectory()
        self.profile = profile ?? environment["AWS_PROFILE"] ?? "default"
        credentialsFile = environment["AWS_SHARED_CREDENTIALS_FILE"] ?? home + "/.aws/credentials"
        configFile = environment["AWS_CONFIG_FILE"] ?? home + "/.aws/config"
    }

    /// The profile's keys.
    /// - Throws: ``AWSPluginsError`` (`CredentialsNotFound`) naming the files it read.
    public func credentials() async throws -> AWSCredentials {
        let sources = [
            (credentialsFile, profile),
            (configFile, profile == "default" ? "default" : "profile \(profile)"),
        ]
        for (file, section) in sources {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8),
                let values = Self.sections(of: text)[section],
                let id = values["aws_access_key_id"], let secret = values["aws_secret_access_key"]
            else { continue }
            return AWSCredentials(accessKeyId: id, secretAccessKey: secret, sessionToken: values["aws_session_token"])
        }
        throw AWSPluginsError(
            code: "CredentialsNotFound", "Profile '\(profile)' has no keys in \(credentialsFile) or \(configFile).",
            "Add aws_access_key_id and aws_secret_access_key to the profile, or choose another with AWS_PROFILE.")
    }

    /// The INI sections of an AWS shared file: `[name]` headers, `key = value` lines, `#` and
    /// `;` comments.
    static func sections(of text: String) -> [String: [String: String]] {
        var sections: [String: [String: String]] = [:]
        var current: String?
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                let name = line.dropFirst().dropLast().trimmingCharacters(in: .whitespaces)
                current = name
                sections[name, default: [:]] = sections[name] ?? [:]
                continue
            }
            guard let current, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            sections[current, default: [:]][key] = value
        }
        return sections
    }
}
