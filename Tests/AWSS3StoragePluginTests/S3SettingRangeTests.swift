import AWSS3StoragePlugin
import Amplify
import Testing

@Suite("S3 storage: part settings have ranges")
struct S3SettingRangeTests {
    @Test(
        "a size or count beyond its range is refused, naming the key and the range",
        arguments: [
            ("partSizeBytes", 1e20, "5242880", "5368709120"),
            ("partSizeBytes", 8_000_000_000_000_000, "5242880", "5368709120"),
            ("multipartThresholdBytes", 8_000_000_000_000_000, "8388608", "5497558138880"),  // from partSizeBytes (8 MiB by default)
            ("multipartThresholdBytes", 6_291_456, "8388608", "5497558138880"),
            ("concurrentParts", 1e20, "1", "32"),
        ] as [(String, Double, String, String)])
    func refusesOutOfRange(_ key: String, _ value: Double, _ low: String, _ high: String) {
        let error = #expect(throws: ConfigurationValueError.self) {
            try S3StorageConfiguration(json: ["bucket": "b", "region": "us-east-1", key: .number(value)])
        }
        #expect(error?.keyPath == key)
        #expect(error?.expected.contains("from \(low) to \(high)") == true, "\(error?.expected ?? "no error")")
    }
}
