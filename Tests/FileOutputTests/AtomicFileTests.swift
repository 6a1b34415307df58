import CruBatchTestSupport
import FileOutput
import Foundation
import Testing

@Suite("AtomicFile")
struct AtomicFileTests {
    private func contents(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    private func permissions(_ path: String) -> mode_t {
        var info = stat()
        #expect(stat(path, &info) == 0)
        return info.st_mode & 0o777
    }

    private func entries(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
    }

    @Test("the file appears, whole and mode 0600, only on commit")
    func appearsOnCommit() throws {
        try withScratchDirectory { directory in
            let path = directory + "/roster.csv"
            let file = try AtomicFile(path: path)
            try file.write("name,email\r\n")
            try file.write(bytes("Ann,a@x.org\r\n"))
            #expect(!FileManager.default.fileExists(atPath: path))
            let temporary = try entries(directory)
            #expect(temporary.count == 1)
            #expect(temporary.first?.hasPrefix(".roster.csv.") == true)

            let result = try file.commit()
            #expect(try contents(path) == bytes("name,email\r\nAnn,a@x.org\r\n"))
            #expect(result.bytes == 25)
            #expect(permissions(path) == 0o600)
            #expect(try entries(directory) == ["roster.csv"])
        }
    }

    @Test("another mode is honoured whatever the umask")
    func customMode() throws {
        try withScratchDirectory { directory in
            let path = directory + "/public.csv"
            let file = try AtomicFile(path: path, mode: 0o644)
            try file.write("x\r\n")
            try file.commit()
            #expect(permissions(path) == 0o644)
        }
    }

    @Test("dropped uncommitted, it leaves nothing behind and an existing file untouched")
    func droppedUncommitted() throws {
        try withScratchDirectory { directory in
            let path = directory + "/out.csv"
            try Data("old\n".utf8).write(to: URL(fileURLWithPath: path))
            do {
                let file = try AtomicFile(path: path)
                try file.write([UInt8](repeating: 65, count: 200_000))
                #expect(try entries(directory).count == 2)
                withExtendedLifetime(file) {}
            }
            #expect(try entries(directory) == ["out.csv"])
            #expect(try contents(path) == bytes("old\n"))
        }
    }

    @Test("commit replaces an existing file; byte count and SHA-256 match the bytes on disk")
    func countsAndHashes() throws {
        try withScratchDirectory { directory in
            let path = directory + "/big.csv"
            try Data("previous content\n".utf8).write(to: URL(fileURLWithPath: path))
            let file = try AtomicFile(path: path)
            var expected: [UInt8] = []
            for index in 0..<10_000 {
                let line = bytes("\(index),row number \(index),é\r\n")
                expected += line
                if index.isMultiple(of: 2) {
                    try file.write(line)
                } else {
                    try line.withUnsafeBytes { try file.write($0) }
                }
            }
            #expect(expected.count > 1 << 17, "large enough to flush several times")
            let result = try file.commit()
            #expect(result.bytes == expected.count)
            #expect(try contents(path) == expected)
            #expect(result.sha256 == (try sha256sum(path)))
        }
    }

    @Test("an empty file commits with the empty digest")
    func emptyCommit() throws {
        try withScratchDirectory { directory in
            let result = try AtomicFile(path: directory + "/empty.csv").commit()
            #expect(result.bytes == 0)
            #expect(result.sha256 == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
            #expect(try contents(directory + "/empty.csv").isEmpty)
        }
    }

    @Test("two outputs to the same path do not share a temporary file")
    func samePathTwice() throws {
        try withScratchDirectory { directory in
            let path = directory + "/same.csv"
            let first = try AtomicFile(path: path)
            let second = try AtomicFile(path: path)
            try first.write("first\n")
            try second.write("second, longer\n")
            try first.commit()
            #expect(try contents(path) == bytes("first\n"))
            try second.commit()
            #expect(try contents(path) == bytes("second, longer\n"))
            #expect(try entries(directory) == ["same.csv"])
        }
    }

    @Test("a missing directory is an OutputError naming the path")
    func missingDirectory() throws {
        let path = "/nonexistent-\(UUID().uuidString)/out.csv"
        do {
            _ = try AtomicFile(path: path)
            Issue.record("creating \(path) succeeded")
        } catch {
            #expect(error.path == path)
            #expect(error.description.contains(path))
            #expect(error.reason.contains("No such file"))
        }
    }

    @Test("SHA256Hasher gives the standard digests")
    func hasher() {
        let abc = SHA256Hasher()
        abc.update(bytes("a"))
        abc.update(bytes("bc"))
        #expect(abc.finalizeHex() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let empty = SHA256Hasher()
        empty.update([UInt8]())
        #expect(empty.finalizeHex() == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }
}
