import CruBatch
import Foundation
import Hummingbird
import MultipartKit
import NIOCore

/// A `multipart/form-data` upload read as it arrives: its small fields kept in memory, its one file
/// written straight to disk, and the whole refused (413) past `limit` bytes, so a large or endless
/// upload never sits in memory.
struct UploadForm {
    /// The form's text fields (`csrf`, `kind`), each at most a few kilobytes.
    private(set) var fields: [String: String] = [:]
    /// The file's name as the browser gave it (its last path component only), if a file came.
    private(set) var fileName: String?
    /// How many bytes of the file were written.
    private(set) var fileBytes = 0

    /// Reads `request`'s body; the file part goes to `destination(fileName)`.
    static func read(_ request: Request, limit: Int, destination: @escaping (String) throws -> String) async throws -> UploadForm {
        guard let type = request.headers[.contentType], type.lowercased().hasPrefix("multipart/form-data"),
              let boundary = Self.parameter("boundary", in: type), !boundary.isEmpty, boundary.count <= 70 else {
            throw HTTPError(.unsupportedMediaType)
        }
        let reading = Reading(destination: destination)
        let parser = MultipartParser(boundary: boundary)
        parser.onHeader = { name, value in reading.header(name, value) }
        parser.onBody = { buffer in reading.body(&buffer) }
        parser.onPartComplete = { reading.complete() }
        var total = 0
        do {
            for try await chunk in request.body {
                total += chunk.readableBytes
                if total > limit { throw HTTPError(.contentTooLarge) }
                try parser.execute(chunk)
                if let failure = reading.failure { throw failure }
            }
        } catch {
            reading.close()
            throw error is HTTPError ? error : HTTPError(.badRequest)
        }
        reading.close()
        guard reading.finishedFile || reading.form.fileName == nil else { throw HTTPError(.badRequest) }
        return reading.form
    }

    /// `name=value` or `name="value"` of a header such as `multipart/form-data; boundary=...`.
    static func parameter(_ name: String, in header: String) -> String? {
        for part in header.split(separator: ";").dropFirst() {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == name else { continue }
            return pair[1].count >= 2 && pair[1].hasPrefix("\"") && pair[1].hasSuffix("\"")
                ? String(pair[1].dropFirst().dropLast()) : pair[1]
        }
        return nil
    }

    /// The parser's callbacks' state: one part at a time.
    private final class Reading {
        let destination: (String) throws -> String
        var form = UploadForm()
        var failure: (any Error)?
        var finishedFile = false
        private var partName: String?
        private var isFile = false
        private var text: [UInt8] = []
        private var file: FileHandle?

        init(destination: @escaping (String) throws -> String) { self.destination = destination }

        func header(_ name: String, _ value: String) {
            guard name.lowercased() == "content-disposition" else { return }
            partName = UploadForm.parameter("name", in: value)
            guard let given = UploadForm.parameter("filename", in: value) else { return }
            isFile = true
            // Only the name: a browser may send a path, and a path never leaves the preview's folder.
            let base = given.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? "upload"
            guard form.fileName == nil else { failure = HTTPError(.badRequest); return }
            form.fileName = base
            do {
                let path = try destination(base)
                guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]),
                      let handle = FileHandle(forWritingAtPath: path) else { throw HTTPError(.internalServerError) }
                file = handle
            } catch { failure = error }
        }

        func body(_ buffer: inout ByteBuffer) {
            if isFile {
                guard let file, let bytes = buffer.readBytes(length: buffer.readableBytes) else { return }
                form.fileBytes += bytes.count
                do { try file.write(contentsOf: bytes) } catch { failure = error }
            } else if let bytes = buffer.readBytes(length: buffer.readableBytes) {
                text += bytes
                if text.count > 4096 { failure = HTTPError(.contentTooLarge) }
            }
        }

        func complete() {
            if isFile {
                finishedFile = true
                close()
            } else if let partName {
                form.fields[partName] = String(decoding: text, as: UTF8.self)
            }
            (partName, isFile, text) = (nil, false, [])
        }

        func close() {
            try? file?.close()
            file = nil
        }
    }
}
