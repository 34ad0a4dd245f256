/// Where the values plugins check came from in files that are not in the Gen 1 shape, so an
/// error names the key the file has (`aws_user_pools_id`) and not only the path it was read as
/// (`auth.plugins.awsCognitoAuthPlugin.CognitoUserPool.Default.PoolId`).
enum ConfigurationSourcePaths {
    static let cognito = "auth.plugins.awsCognitoAuthPlugin."
    static let s3 = "storage.plugins.awsS3StoragePlugin."

    /// The Cognito and S3 values every shape translates, by the Gen 1 path they are read as.
    private static let checkedValues: [(gen1: String, gen2: String, resources: String, flat: String)] = [
        (cognito + "CognitoUserPool.Default.PoolId", "auth.user_pool_id", "Auth.Cognito.userPoolId", "aws_user_pools_id"),
        (
            cognito + "CognitoUserPool.Default.AppClientId", "auth.user_pool_client_id", "Auth.Cognito.userPoolClientId",
            "aws_user_pools_web_client_id"
        ),
        (cognito + "CognitoUserPool.Default.Region", "auth.aws_region", "Auth.Cognito.userPoolId", "aws_cognito_region"),
        (cognito + "CognitoUserPool.Default.Endpoint", "", "Auth.Cognito.userPoolEndpoint", "aws_user_pools_endpoint"),
        (
            cognito + "CredentialsProvider.CognitoIdentity.Default.PoolId", "auth.identity_pool_id", "Auth.Cognito.identityPoolId",
            "aws_cognito_identity_pool_id"
        ),
        (cognito + "CredentialsProvider.CognitoIdentity.Default.Region", "auth.aws_region", "Auth.Cognito.identityPoolId", "aws_cognito_region"),
        (cognito + "Auth.Default.OAuth.WebDomain", "auth.oauth.domain", "Auth.Cognito.loginWith.oauth.domain", "oauth.domain"),
        (s3 + "bucket", "storage.bucket_name", "Storage.S3.bucket", "aws_user_files_s3_bucket"),
        (s3 + "region", "storage.aws_region", "Storage.S3.region", "aws_user_files_s3_bucket_region"),
    ]

    /// A Gen 2 file's.
    static let gen2: [String: String] = Dictionary(
        checkedValues.filter { !$0.gen2.isEmpty }.map { ($0.gen1, $0.gen2) }, uniquingKeysWith: { first, _ in first })

    /// Amplify JS v6's resources object's.
    static let resources: [String: String] = Dictionary(checkedValues.map { ($0.gen1, $0.resources) }, uniquingKeysWith: { first, _ in first })

    /// An Amplify JS flat file's, each flat key named as `path` gives it (a v5 object's key when
    /// the value came from one).
    static func flat(_ path: (String) -> String) -> [String: String] {
        Dictionary(checkedValues.map { ($0.gen1, path($0.flat)) }, uniquingKeysWith: { first, _ in first })
    }

    /// An `awsconfiguration.json`'s: the Cognito block is its top level, as it is.
    static let awsConfiguration: [String: String] = {
        var paths: [String: String] = [:]
        for entry in checkedValues where entry.gen1.hasPrefix(cognito) {
            paths[entry.gen1] = String(entry.gen1.dropFirst(cognito.count))
        }
        paths[s3 + "bucket"] = "S3TransferUtility.Default.Bucket"
        paths[s3 + "region"] = "S3TransferUtility.Default.Region"
        return paths
    }()
}
