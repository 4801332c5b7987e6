internal import CCurl

#if canImport(Glibc)
import Glibc
#endif

/// A libcurl easy handle and its error buffer. Only used under `HTTPClient`'s mutex, one transfer at a time.
final class EasyHandle: @unchecked Sendable {  // the CURL pointer is only touched while the mutex is held
    private let curl: UnsafeMutableRawPointer
    private let errorBuffer: UnsafeMutablePointer<CChar>

    private init(curl: UnsafeMutableRawPointer) {
        self.curl = curl
        self.errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        self.errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    static func make() throws(HTTPClientError) -> EasyHandle {
        guard let curl = curl_easy_init() else {
            throw .other(code: Int(CURLE_FAILED_INIT.rawValue), message: "curl_easy_init failed")
        }
        return EasyHandle(curl: curl)
    }

    deinit {
        curl_easy_cleanup(curl)
        errorBuffer.deallocate()
    }

    func perform(_ request: HTTPClientRequest, maxResponseBytes: Int) throws(HTTPClientError) -> HTTPClientResponse {
        let plan = try RequestPlan(request)
        // Reset forgets every option of the last request but keeps its open connections (keep-alive).
        curl_easy_reset(curl)
        errorBuffer[0] = 0
        let collector = ResponseCollector(limit: maxResponseBytes)
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headerList) }
        for line in plan.headerLines {
            guard let appended = curl_slist_append(headerList, line) else {
                throw .other(code: Int(CURLE_OUT_OF_MEMORY.rawValue), message: "curl_slist_append failed")
            }
            headerList = appended
        }
        let context = Unmanaged.passUnretained(collector).toOpaque()
        try configure(plan, request: request, headerList: headerList, context: context, limit: maxResponseBytes)
        let code = withExtendedLifetime(collector) { curl_easy_perform(curl) }
        guard code == CURLE_OK else { throw failure(code, collector: collector, limit: maxResponseBytes) }
        var status = 0
        _ = aiden_curl_getinfo_long(curl, CURLINFO_RESPONSE_CODE, &status)
        return HTTPClientResponse(status: status, headers: collector.headers, body: collector.body)
    }

    private func configure(
        _ plan: RequestPlan, request: HTTPClientRequest,
        headerList: UnsafeMutablePointer<curl_slist>?, context: UnsafeMutableRawPointer,
        limit: Int
    ) throws(HTTPClientError) {
        try check(aiden_curl_setopt_pointer(curl, CURLOPT_ERRORBUFFER, errorBuffer), "ERRORBUFFER")
        try check(aiden_curl_setopt_string(curl, CURLOPT_URL, request.url), "URL")
        try check(aiden_curl_setopt_string(curl, CURLOPT_PROTOCOLS_STR, "http"), "PROTOCOLS_STR")
        try check(aiden_curl_setopt_long(curl, CURLOPT_NOSIGNAL, 1), "NOSIGNAL")
        try check(aiden_curl_setopt_string(curl, CURLOPT_PROXY, ""), "PROXY")
        try check(aiden_curl_setopt_string(curl, CURLOPT_NOPROXY, "*"), "NOPROXY")
        try check(aiden_curl_setopt_long(curl, CURLOPT_FOLLOWLOCATION, 0), "FOLLOWLOCATION")
        try check(
            aiden_curl_setopt_long(curl, CURLOPT_CONNECTTIMEOUT_MS, request.timeout.connectMilliseconds),
            "CONNECTTIMEOUT_MS")
        try check(aiden_curl_setopt_long(curl, CURLOPT_TIMEOUT_MS, request.timeout.totalMilliseconds), "TIMEOUT_MS")
        try check(aiden_curl_setopt_off(curl, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(limit)), "MAXFILESIZE_LARGE")
        try check(aiden_curl_setopt_write(curl, CURLOPT_WRITEFUNCTION, writeBody), "WRITEFUNCTION")
        try check(aiden_curl_setopt_pointer(curl, CURLOPT_WRITEDATA, context), "WRITEDATA")
        try check(aiden_curl_setopt_write(curl, CURLOPT_HEADERFUNCTION, writeHeader), "HEADERFUNCTION")
        try check(aiden_curl_setopt_pointer(curl, CURLOPT_HEADERDATA, context), "HEADERDATA")
        try check(aiden_curl_setopt_slist(curl, CURLOPT_HTTPHEADER, headerList), "HTTPHEADER")
        if let path = request.unixSocketPath {
            try check(aiden_curl_setopt_string(curl, CURLOPT_UNIX_SOCKET_PATH, path), "UNIX_SOCKET_PATH")
        }
        if let local = request.localAddress {
            try check(aiden_curl_setopt_string(curl, CURLOPT_INTERFACE, local), "INTERFACE")
        }
        switch plan.bodyMode {
        case .get:
            try check(aiden_curl_setopt_long(curl, CURLOPT_HTTPGET, 1), "HTTPGET")
        case .head:
            try check(aiden_curl_setopt_long(curl, CURLOPT_NOBODY, 1), "NOBODY")
        case .withBody:
            try check(aiden_curl_setopt_long(curl, CURLOPT_POST, 1), "POST")
            try check(
                aiden_curl_setopt_off(curl, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count)),
                "POSTFIELDSIZE_LARGE")
            // COPYPOSTFIELDS copies the bytes now, so the array need not outlive this call.
            let code = request.body.withUnsafeBytes { raw -> CURLcode in
                if let base = raw.baseAddress {
                    let bytes = UnsafeMutableRawPointer(mutating: base)
                    return aiden_curl_setopt_pointer(curl, CURLOPT_COPYPOSTFIELDS, bytes)
                }
                return aiden_curl_setopt_string(curl, CURLOPT_COPYPOSTFIELDS, "")
            }
            try check(code, "COPYPOSTFIELDS")
            if plan.method != "POST" {
                try check(aiden_curl_setopt_string(curl, CURLOPT_CUSTOMREQUEST, plan.method), "CUSTOMREQUEST")
            }
        }
    }

    private func check(_ code: CURLcode, _ option: String) throws(HTTPClientError) {
        guard code == CURLE_OK else {
            throw .other(code: Int(code.rawValue), message: "setting CURLOPT_\(option): \(Self.text(of: code))")
        }
    }

    private func failure(_ code: CURLcode, collector: ResponseCollector, limit: Int) -> HTTPClientError {
        let message = errorBuffer[0] != 0 ? String(cString: errorBuffer) : Self.text(of: code)
        switch code {
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_INTERFACE_FAILED:
            var osErrno = 0
            _ = aiden_curl_getinfo_long(curl, CURLINFO_OS_ERRNO, &osErrno)
            if osErrno != 0, let text = strerror(Int32(truncatingIfNeeded: osErrno)) {
                return .couldNotConnect(String(cString: text).lowercased())
            }
            return .couldNotConnect(message)
        case CURLE_OPERATION_TIMEDOUT:
            return .timedOut
        case CURLE_FILESIZE_EXCEEDED:
            return .responseTooLarge(limit: limit)
        case CURLE_WRITE_ERROR where collector.exceededLimit:
            return .responseTooLarge(limit: limit)
        case CURLE_GOT_NOTHING, CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_PARTIAL_FILE:
            return .connectionLost(message)
        default:
            return .other(code: Int(code.rawValue), message: message)
        }
    }

    private static func text(of code: CURLcode) -> String {
        guard let text = curl_easy_strerror(code) else { return "CURLcode \(code.rawValue)" }
        return String(cString: text)
    }
}

/// libcurl's write callback: `context` is the transfer's `ResponseCollector`. Returning less than given aborts.
private func writeBody(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
    _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let context else { return 0 }
    let collector = Unmanaged<ResponseCollector>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    guard length > 0, let data else { return length }
    return collector.appendBody(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
}

/// libcurl's header callback: one complete header line per call.
private func writeHeader(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
    _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let context else { return 0 }
    let collector = Unmanaged<ResponseCollector>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    guard length > 0, let data else { return length }
    collector.appendHeaderLine(UnsafeRawBufferPointer(start: data, count: length))
    return length
}
