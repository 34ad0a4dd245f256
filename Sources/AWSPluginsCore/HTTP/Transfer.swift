import AmplifyEventLoop
import CCurlShims
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One transfer: its curl easy handle, the body it sends, what it receives, and who waits.
/// Loop thread only.
final class Transfer {
    let easy: UnsafeMutableRawPointer
    var id = 0
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let upload: [UInt8]
    private var uploadOffset = 0
    private var uploadDescriptor: Int32 = -1
    /// Where the next read of a file body starts, and how many bytes of it are left to send.
    private var uploadFileOffset: Int64 = 0
    private var uploadFileRemaining: Int64 = 0
    private var downloadDescriptor: Int32 = -1
    private var received: [UInt8] = []
    /// Body bytes received, to memory or to the response file.
    private var bodyBytes: Int64 = 0
    private var continuation: UnsafeContinuation<HTTPResponse, any Error>?
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
    private let request: HTTPRequest
    private var fileError: String?
    private var bodyGoesToFile: Bool?
    /// Progress last passed on, and last seen (curl calls its progress function on every turn,
    /// mostly with the same figures).
    private var reportedUpload: Int64 = 0
    private var reportedDownload: Int64 = 0
    private var seenUpload: (done: Int64, total: Int64) = (0, 0)
    private var seenDownload: (done: Int64, total: Int64) = (0, 0)
    /// Progress is passed on each time it moved this far, when it reaches its total, and at the
    /// end (every 64 KiB curl sent or received made a report, and a Hub event, before).
    static let progressStep: Int64 = 1 << 20
    /// Bodies in memory up to this size are handed to curl whole (curl sends up to 64 KiB of
    /// body in the same send as the head); larger ones stream through the read function.
    static let inlineBodyLimit = 64 << 10
    private var cleanedUp = false
    /// Whether `easy` is still this transfer's to free (``releaseHandle()`` hands it back).
    private var ownsHandle = true

    /// A transfer on `easy`: a fresh handle or one ``HTTPClient`` kept from an earlier transfer
    /// (reset, so no option of that one remains; its connection stays in the multi handle's
    /// cache either way). The transfer owns it until ``releaseHandle()``.
    init(easy: UnsafeMutableRawPointer, request: HTTPRequest, continuation: UnsafeContinuation<HTTPResponse, any Error>) throws {
        self.easy = easy
        self.request = request
        self.continuation = continuation
        errorBuffer.initialize(to: 0)
        var uploadSize: Int64 = 0
        switch request.body {
        case .empty: upload = []
        case .bytes(let bytes):
            upload = bytes
            uploadSize = Int64(bytes.count)
        case .file(let path), .fileRange(let path, _, _):
            upload = []
            uploadDescriptor = open(path, O_RDONLY | O_CLOEXEC)
            var status = stat()
            guard uploadDescriptor >= 0, fstat(uploadDescriptor, &status) == 0 else {
                cleanUp()
                throw HTTPClientError(kind: .other, curlCode: -1, message: "Cannot read \(path): \(String(cString: strerror(errno)))")
            }
            uploadSize = Int64(status.st_size)
            if case .fileRange(_, let offset, let length) = request.body {
                guard offset >= 0, length >= 0, offset + length <= uploadSize else {
                    cleanUp()
                    throw HTTPClientError(
                        kind: .other, curlCode: -1, message: "\(path) has \(uploadSize) bytes; bytes \(offset)..<\(offset + length) do not fit")
                }
                uploadFileOffset = offset
                uploadSize = length
            }
            uploadFileRemaining = uploadSize
        }
        if let file = request.responseFile {
            // A continued download keeps the bytes already there until its answer says where the
            // body goes (after them for a 206, from the start for a 200).
            let truncate = request.responseFileOffset > 0 ? 0 : O_TRUNC
            downloadDescriptor = open(file, O_WRONLY | O_CREAT | truncate | O_CLOEXEC, 0o644)
            guard downloadDescriptor >= 0 else {
                cleanUp()
                throw HTTPClientError(kind: .other, curlCode: -1, message: "Cannot write \(file): \(String(cString: strerror(errno)))")
            }
        }
        let me = Unmanaged.passUnretained(self).toOpaque()
        // withCString: passing a String to a C parameter copies it into a new array first.
        (request.urlText ?? request.url.absoluteString).withCString { _ = c_curl_easy_setopt_string(easy, CURLOPT_URL, $0) }
        c_curl_easy_setopt_pointer(easy, CURLOPT_PRIVATE, me)
        c_curl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer)
        c_curl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        c_curl_easy_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, "")
        let method = request.method.uppercased()
        if method == "HEAD" {
            c_curl_easy_setopt_long(easy, CURLOPT_NOBODY, 1)
        } else if method != "GET" || request.body != .empty {
            Self.withCString(method) { _ = c_curl_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, $0) }
        }
        var postFields = false
        if case .bytes(let bytes) = request.body, !bytes.isEmpty, bytes.count <= Self.inlineBodyLimit {
            postFields = true
            // A small body goes out with the request head in one send (one segment, one wake-up
            // of the server), as the curl tool's --data does; through the read function curl
            // sent the head and the body apart. curl copies the bytes; the size comes first so
            // it copies them all, NULs included.
            c_curl_easy_setopt_offset(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count))
            bytes.withUnsafeBytes { raw in
                _ = c_curl_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: raw.baseAddress))
            }
        } else if request.body != .empty || method == "PUT" || method == "POST" || method == "PATCH" {
            c_curl_easy_setopt_long(easy, CURLOPT_UPLOAD, 1)
            c_curl_easy_setopt_offset(easy, CURLOPT_INFILESIZE_LARGE, curl_off_t(uploadSize))
            c_curl_easy_setopt_read_function(easy) { buffer, size, count, userdata in
                guard let buffer, let userdata else { return 0 }
                return Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue().read(into: buffer, size * count)
            }
            c_curl_easy_setopt_pointer(easy, CURLOPT_READDATA, me)
        }
        c_curl_easy_setopt_write_function(easy) { buffer, size, count, userdata in
            guard let buffer, let userdata else { return 0 }
            return Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue().write(from: buffer, size * count)
        }
        c_curl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, me)
        if request.responseFile != nil {
            // A download to a file: 128 KiB reads (the curl tool reads 100 KiB at a time; curl's
            // default of 16 KiB makes eight times the reads and writes).
            c_curl_easy_setopt_long(easy, CURLOPT_BUFFERSIZE, 128 << 10)
        }
        if request.uploadProgress != nil || request.downloadProgress != nil {
            c_curl_easy_setopt_long(easy, CURLOPT_NOPROGRESS, 0)
            c_curl_easy_setopt_xferinfo_function(easy) { userdata, downloadTotal, downloaded, uploadTotal, uploaded in
                guard let userdata else { return 0 }
                Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue().progressed(
                    uploaded: Int64(uploaded), of: Int64(uploadTotal), downloaded: Int64(downloaded), of: Int64(downloadTotal))
                return 0
            }
            c_curl_easy_setopt_pointer(easy, CURLOPT_XFERINFODATA, me)
        }
        if let file = request.trustedCertificatesFile {
            c_curl_easy_setopt_string(easy, CURLOPT_CAINFO, file)
        }
        if let timeout = request.timeout {
            c_curl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, max(1, Int(timeout.saturatingMilliseconds)))
        }
        if let connectTimeout = request.connectTimeout {
            c_curl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, max(1, Int(connectTimeout.saturatingMilliseconds)))
        }
        if let lowSpeed = request.lowSpeedLimit {
            c_curl_easy_setopt_long(easy, CURLOPT_LOW_SPEED_LIMIT, max(1, lowSpeed.bytesPerSecond))
            c_curl_easy_setopt_long(easy, CURLOPT_LOW_SPEED_TIME, max(1, lowSpeed.seconds))
        }
        // curl adds `Expect: 100-continue` to large uploads; AWS and the test servers don't need it.
        for (name, value) in request.headers {
            headerList = Self.withCString(name, ": ", value) { curl_slist_append(headerList, $0) }
        }
        headerList = curl_slist_append(headerList, "Expect:")
        // A body sent as post fields would otherwise get curl's form Content-Type.
        if postFields, !request.headers.contains(where: { $0.name.equalsIgnoringASCIICase("content-type") }) {
            headerList = curl_slist_append(headerList, "Content-Type:")
        }
        c_curl_easy_setopt_pointer(easy, CURLOPT_HTTPHEADER, headerList)
    }

    deinit {
        cleanUp()
        errorBuffer.deallocate()
    }

    /// Runs `body` with `first`, `second` and `third` one after the other as a NUL-terminated C
    /// string in a temporary buffer (on the stack when short), for curl to copy: a header line
    /// needs no String of its own, and a short string no array (Swift copies a string stored
    /// inline into a new array to pass it as a C string).
    private static func withCString<Result>(
        _ first: String, _ second: StaticString = "", _ third: String = "", _ body: (UnsafePointer<CChar>) -> Result
    ) -> Result {
        let middle = UnsafeRawBufferPointer(start: second.utf8Start, count: second.utf8CodeUnitCount)
        let count = first.utf8.count + middle.count + third.utf8.count
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count + 1) { buffer in
            var index = 0
            func append(_ bytes: UnsafeRawBufferPointer) {
                UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[index..<(index + bytes.count)])).copyMemory(from: bytes)
                index += bytes.count
            }
            var text = first
            text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
            append(middle)
            text = third
            text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
            buffer[index] = 0
            return buffer.withMemoryRebound(to: CChar.self) { body(UnsafePointer($0.baseAddress.unsafelyUnwrapped)) }
        }
    }

    /// Gives the easy handle back for another transfer (after it left the multi handle) and
    /// frees the header list and files; the transfer must not touch the handle afterwards.
    func releaseHandle() -> UnsafeMutableRawPointer {
        ownsHandle = false
        cleanUp()
        return easy
    }

    /// Frees the easy handle (unless it was released), header list and files, once (a failed
    /// init calls it and then deinit runs too).
    private func cleanUp() {
        guard !cleanedUp else { return }
        cleanedUp = true
        if ownsHandle { curl_easy_cleanup(easy) }
        curl_slist_free_all(headerList)
        headerList = nil
        if uploadDescriptor >= 0 { close(uploadDescriptor) }
        if downloadDescriptor >= 0 { close(downloadDescriptor) }
        uploadDescriptor = -1
        downloadDescriptor = -1
    }

    private func read(into buffer: UnsafeMutablePointer<CChar>, _ capacity: Int) -> Int {
        if uploadDescriptor >= 0 {
            guard uploadFileRemaining > 0 else { return 0 }
            let count = pread(uploadDescriptor, buffer, Int(min(Int64(capacity), uploadFileRemaining)), off_t(uploadFileOffset))
            if count > 0 {
                uploadFileOffset += Int64(count)
                uploadFileRemaining -= Int64(count)
            }
            if count < 0 {
                fileError = "Reading the request body failed: \(String(cString: strerror(errno)))"
                return Int(CURL_READFUNC_ABORT)
            }
            return count
        }
        let count = min(capacity, upload.count - uploadOffset)
        guard count > 0 else { return 0 }
        upload.withUnsafeBytes { bytes in
            if let base = bytes.baseAddress { UnsafeMutableRawPointer(buffer).copyMemory(from: base + uploadOffset, byteCount: count) }
        }
        uploadOffset += count
        return count
    }

    private func write(from buffer: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
        if bodyGoesToFile == nil {
            // Only a successful answer's body goes to the response file; an error answer's body
            // stays in memory so the caller can read the service's error.
            var status = 0
            c_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
            bodyGoesToFile = downloadDescriptor >= 0 && (200..<300).contains(status)
            if bodyGoesToFile == true {
                // A continued download: a 206 goes after the bytes already there, anything else
                // (a server that ignored the range) replaces them.
                let offset = status == 206 ? request.responseFileOffset : 0
                guard ftruncate(downloadDescriptor, off_t(offset)) == 0, lseek(downloadDescriptor, off_t(offset), SEEK_SET) >= 0 else {
                    fileError = "Preparing the response file failed: \(String(cString: strerror(errno)))"
                    return 0
                }
            }
        }
        if let limit = request.maximumResponseBytes, bodyBytes + Int64(count) > limit {
            fileError = "The answer's body is over \(limit) bytes, the most this request accepts."
            return 0
        }
        bodyBytes += Int64(count)
        if bodyGoesToFile == true {
            var written = 0
            while written < count {
                let result = Glibc.write(downloadDescriptor, buffer + written, count - written)
                if result <= 0 {
                    fileError = "Writing the response body failed: \(String(cString: strerror(errno)))"
                    return 0
                }
                written += result
            }
            return count
        }
        received.append(contentsOf: UnsafeRawBufferPointer(start: buffer, count: count))
        return count
    }

    private func progressed(uploaded: Int64, of uploadTotal: Int64, downloaded: Int64, of downloadTotal: Int64) {
        seenUpload = (uploaded, uploadTotal)
        seenDownload = (downloaded, downloadTotal)
        if let report = request.uploadProgress, uploaded > reportedUpload, uploaded - reportedUpload >= Self.progressStep || uploaded == uploadTotal {
            reportedUpload = uploaded
            report(uploaded, uploadTotal)
        }
        if let report = request.downloadProgress, downloaded > reportedDownload,
            downloaded - reportedDownload >= Self.progressStep || downloaded == downloadTotal
        {
            reportedDownload = downloaded
            report(downloaded, downloadTotal)
        }
    }

    /// Passes on the progress made since the last report (the transfer ended).
    private func reportRemainingProgress() {
        if let report = request.uploadProgress, seenUpload.done > reportedUpload {
            reportedUpload = seenUpload.done
            report(seenUpload.done, seenUpload.total)
        }
        if let report = request.downloadProgress, seenDownload.done > reportedDownload {
            reportedDownload = seenDownload.done
            report(seenDownload.done, seenDownload.total)
        }
    }

    /// curl finished the transfer with `code`.
    func complete(_ code: CURLcode) {
        reportRemainingProgress()
        guard code == CURLE_OK else {
            let message = fileError ?? (errorBuffer.pointee != 0 ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code)))
            let kind: HTTPClientError.Kind =
                switch code {
                case CURLE_OPERATION_TIMEDOUT: .timeout
                // A body cut short (curl 18) is a connection that broke mid-answer.
                case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE:
                    .connection
                default: .other
                }
            var error = HTTPClientError(kind: kind, curlCode: Int32(code.rawValue), message: message)
            if fileError == nil, bodyBytes > 0 {
                var status = 0
                c_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
                error.partial = HTTPPartialResponse(status: status, headers: responseHeaders(), body: received, bodyBytes: bodyBytes)
            }
            finish(.failure(error))
            return
        }
        var status = 0
        c_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        finish(.success(HTTPResponse(status: status, headers: responseHeaders(), body: received)))
    }

    /// The final answer's headers, read with curl's header API.
    private func responseHeaders() -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(16)
        var previous: UnsafeMutablePointer<curl_header>?
        while let header = curl_easy_nextheader(easy, UInt32(CURLH_HEADER), -1, previous) {
            headers.append((String(cString: header.pointee.name), String(cString: header.pointee.value)))
            previous = header
        }
        return headers
    }

    func finish(_ result: Result<HTTPResponse, any Error>) {
        guard let continuation else { return }
        self.continuation = nil
        if downloadDescriptor >= 0 {
            close(downloadDescriptor)
            downloadDescriptor = -1
        }
        continuation.resume(with: result)
    }
}
