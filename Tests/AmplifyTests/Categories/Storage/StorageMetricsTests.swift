import Amplify
import AmplifyEventLoop
import Foundation
import MetricsTestKit
import Testing

@Suite("Storage metrics")
struct StorageMetricsTests {
    @Test("a transfer counts the bytes its progress adds, by direction, and its outcome when it finishes")
    func bytesAndOutcomes() async throws {
        let metrics = TestMetrics()
        let loop = try EventLoop(name: "storage-metrics")
        let hub = DefaultHubPlugin(loop: loop)
        let (upload, up) = StorageUploadDataTask.make(hubEventName: HubPayload.EventName.Storage.uploadData, hub: hub, metricsFactory: metrics)
        up.report(StorageTransferProgress(completedBytes: 100, totalBytes: 250))
        up.report(StorageTransferProgress(completedBytes: 250, totalBytes: 250))
        up.succeed("public/a")
        // Reports after the end are ignored.
        up.report(StorageTransferProgress(completedBytes: 999, totalBytes: 999))
        #expect(try await upload.value == "public/a")
        let (download, down) = StorageDownloadDataTask.make(
            hubEventName: HubPayload.EventName.Storage.downloadData, hub: hub, metricsFactory: metrics)
        down.report(StorageTransferProgress(completedBytes: 40, totalBytes: 100))
        download.cancel()
        let (failing, failed) = StorageDownloadFileTask.make(
            hubEventName: HubPayload.EventName.Storage.downloadFile, hub: hub, metricsFactory: metrics)
        failed.report(StorageTransferProgress(completedBytes: 10, totalBytes: nil))
        failed.fail(StorageError.keyNotFound("k", "gone", ""))
        await #expect(throws: StorageError.self) { try await failing.value }

        #expect(try metrics.expectCounter(AmplifyMetrics.storageBytes, [("direction", "up")]).totalValue == 250)
        #expect(try metrics.expectCounter(AmplifyMetrics.storageBytes, [("direction", "down")]).totalValue == 50)
        #expect(try metrics.expectCounter(AmplifyMetrics.storageTransfers, [("direction", "up"), ("outcome", "completed")]).totalValue == 1)
        #expect(try metrics.expectCounter(AmplifyMetrics.storageTransfers, [("direction", "down"), ("outcome", "cancelled")]).totalValue == 1)
        #expect(try metrics.expectCounter(AmplifyMetrics.storageTransfers, [("direction", "down"), ("outcome", "failed")]).totalValue == 1)
        await hub.reset()
        try loop.shutdown()
    }
}
