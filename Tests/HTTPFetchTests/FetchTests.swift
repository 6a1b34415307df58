import CruBatchTestSupport
import Foundation
import HTTPFetch
import Testing

/// HTTPFetcher against scripts/faulty-http: what it saves, how it asks again, where it stops.
@Suite("HTTP fetch")
struct FetchTests {
    private let scratch = ScratchDirectory()

    @Test("a body is saved to a 0600 temporary file no folder lists, with its validators; the same validators get 304")
    func savesAndRevalidates() throws {
        let body = "code,name\ncalpoly,Cal Poly\n"
        let file = try scratch.writeFile("campuses.csv", body)
        let server = try FaultyHTTPServer(files: ["/campuses.csv": file])
        let folder = try scratch.folder("downloads")
        let request = FetchRequest(url: server.url("/campuses.csv"), caBundle: server.caBundle)
        guard case .fetched(let fetched) = try HTTPFetcher.fetch(request, into: folder) else {
            Issue.record("expected a body")
            return
        }
        #expect(try String(contentsOfFile: fetched.path, encoding: .utf8) == body)
        #expect(fetched.bytes == Int64(body.utf8.count))
        // Nothing of it has a name, so nothing is left behind however the process ends.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
        var info = stat()
        #expect(stat(fetched.path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(fetched.contentType?.hasPrefix("text/csv") == true)
        let etag = try #require(fetched.etag)
        #expect(fetched.lastModified != nil)
        fetched.remove()
        #expect(!FileManager.default.fileExists(atPath: fetched.path))

        var again = request
        again.etag = etag
        guard case .notModified = try HTTPFetcher.fetch(again, into: folder) else {
            Issue.record("expected 304")
            return
        }
        #expect(server.requests.last?.ifNoneMatch == etag)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    @Test("a body of exactly the limit is taken; one byte more is refused and leaves no file")
    func sizeLimitBoundary() throws {
        let file = try scratch.writeFile("ten.csv", "123456789\n")
        let server = try FaultyHTTPServer(files: ["/ten.csv": file])
        let folder = try scratch.folder("downloads")
        var request = FetchRequest(url: server.url("/ten.csv"), caBundle: server.caBundle)
        request.limits.maxBytes = 10
        guard case .fetched(let fetched) = try HTTPFetcher.fetch(request, into: folder) else {
            Issue.record("expected a body")
            return
        }
        fetched.remove()
        request.limits.maxBytes = 9
        var endless = FetchRequest(url: server.url("/endless"), caBundle: server.caBundle)
        endless.limits.maxBytes = 5_000_000
        for tooLarge in [request, endless] {
            do {
                _ = try HTTPFetcher.fetch(tooLarge, into: folder)
                Issue.record("a body over the limit was accepted: \(tooLarge.url)")
            } catch {
                #expect(error.reason == .tooLarge)
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    @Test("a password in the URL is masked in every error")
    func masksPassword() throws {
        let server = try FaultyHTTPServer()
        let request = FetchRequest(url: server.url("/status/500", userInfo: "staff:p%40ss-word@"), caBundle: server.caBundle)
        do {
            _ = try HTTPFetcher.fetch(request)
            Issue.record("a 500 was accepted")
        } catch {
            #expect(error.reason == .status(500))
            #expect(error.message.contains("staff:***@"))
            #expect(!error.message.contains("p%40ss") && !error.message.contains("p@ss"))
        }
    }
}
