import Foundation

/// What the Storage category does. Transfers return a task at once; the other calls are
/// `async` and throw ``StorageError``. Plugins also dispatch each call's outcome on the Hub's
/// `.storage` channel (`HubPayload.EventName.Storage.*`).
public protocol StorageCategoryBehavior: Sendable {
    /// Uploads `data` to `path`.
    func uploadData(path: any StoragePath, data: Data, options: StorageUploadDataRequest.Options?) -> StorageUploadDataTask
    /// Uploads the file at `local` to `path`.
    func uploadFile(path: any StoragePath, local: URL, options: StorageUploadFileRequest.Options?) -> StorageUploadFileTask
    /// Downloads the object at `path` into memory.
    func downloadData(path: any StoragePath, options: StorageDownloadDataRequest.Options?) -> StorageDownloadDataTask
    /// Downloads the object at `path` into the file at `local`.
    func downloadFile(path: any StoragePath, local: URL, options: StorageDownloadFileRequest.Options?) -> StorageDownloadFileTask
    /// A URL the object can be fetched from. - Throws: ``StorageError``.
    func getURL(path: any StoragePath, options: StorageGetURLRequest.Options?) async throws -> URL
    /// Removes the object at `path`; returns its path. - Throws: ``StorageError``.
    func remove(path: any StoragePath, options: StorageRemoveRequest.Options?) async throws -> String
    /// Lists objects below `path`. - Throws: ``StorageError``.
    func list(path: any StoragePath, options: StorageListRequest.Options?) async throws -> StorageListResult
}
