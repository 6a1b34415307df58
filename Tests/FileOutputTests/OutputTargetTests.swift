import CruBatchTestSupport
import FileOutput
import Foundation
import Testing

/// Everything a thread read from a descriptor until end of file: the other end of a FIFO or a socket
/// that the code under test writes to (its writer blocks until a reader is there).
private final class BackgroundReader: @unchecked Sendable {
    private let finished = DispatchSemaphore(value: 0)
    private var received: [UInt8] = []

    /// `openDescriptor` runs on the reader's thread, where it may block (opening a FIFO, `accept`).
    init(_ openDescriptor: @escaping @Sendable () -> Int32) {
        Thread { [self] in
            let descriptor = openDescriptor()
            var chunk = [UInt8](repeating: 0, count: 4096)
            while descriptor >= 0 {
                let count = read(descriptor, &chunk, chunk.count)
                if count <= 0 { break }
                received += chunk[..<count]
            }
            close(descriptor)
            finished.signal()
        }.start()
    }

    /// The bytes read, once the writer has closed its end.
    func bytes() -> [UInt8] {
        finished.wait()
        return received
    }
}

@Suite("OutputTarget and OutputFile")
struct OutputTargetTests {
    private func fileType(_ path: String) -> mode_t {
        var info = stat()
        #expect(lstat(path, &info) == 0, "\(path)")
        return info.st_mode & S_IFMT
    }

    private func write(_ text: String, to target: OutputTarget) throws -> (bytes: Int, sha256: String) {
        let file = try OutputFile(target)
        try file.write(bytes(text))
        return try file.commit()
    }

    @Test("- and /dev/stdout are standard output")
    func standardOutput() throws {
        #expect(try OutputTarget("-") == .standardOutput)
        #expect(try OutputTarget("/dev/stdout") == .standardOutput)
    }

    @Test("a free name and a regular file are replaced atomically where they are")
    func regularFiles() throws {
        try withScratchDirectory { directory in
            let path = directory + "/out.csv"
            #expect(try OutputTarget(path) == .regularFile(path))
            try writeFile(path, "old\n")
            #expect(try OutputTarget(path) == .regularFile(path))
            #expect(try write("new\n", to: OutputTarget(path)).bytes == 4)
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "new\n")
        }
    }

    @Test("through a chain of relative symbolic links, the file is replaced beside itself and the links stay")
    func symbolicLinks() throws {
        try withScratchDirectory { directory in
            try FileManager.default.createDirectory(atPath: directory + "/links", withIntermediateDirectories: true)
            try writeFile(directory + "/data/real.csv", "old\n")
            #expect(symlink("../data/real.csv", directory + "/links/hop") == 0)
            #expect(symlink("hop", directory + "/links/out.csv") == 0)

            let target = try OutputTarget(directory + "/links/out.csv")
            #expect(target == .regularFile(directory + "/links/../data/real.csv"))
            let written = try write("replaced\n", to: target)

            #expect(fileType(directory + "/links/out.csv") == S_IFLNK)
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: directory + "/links/hop") == "../data/real.csv")
            #expect(try String(contentsOfFile: directory + "/data/real.csv", encoding: .utf8) == "replaced\n")
            #expect(written.sha256 == (try sha256sum(directory + "/data/real.csv")))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/data") == ["real.csv"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/links").sorted() == ["hop", "out.csv"])
        }
    }

    @Test("a symbolic link to nothing yet creates the file it points to")
    func danglingLink() throws {
        try withScratchDirectory { directory in
            #expect(symlink(directory + "/new.csv", directory + "/link.csv") == 0)
            _ = try write("x\n", to: OutputTarget(directory + "/link.csv"))
            #expect(fileType(directory + "/link.csv") == S_IFLNK)
            #expect(try String(contentsOfFile: directory + "/new.csv", encoding: .utf8) == "x\n")
        }
    }

    @Test("a named pipe is written through to its reader and stays a pipe")
    func namedPipe() throws {
        try withScratchDirectory { directory in
            let path = directory + "/fifo"
            #expect(mkfifo(path, 0o600) == 0)
            let reader = BackgroundReader { open(path, O_RDONLY) }
            let target = try OutputTarget(path)
            #expect(target == .device(path))
            let text = String(repeating: "a row of a roster\r\n", count: 10_000)
            let written = try write(text, to: target)
            #expect(reader.bytes() == bytes(text))
            #expect(written.bytes == text.utf8.count)
            #expect(fileType(path) == S_IFIFO)
        }
    }

    @Test("a Unix socket is connected to and written through")
    func unixSocket() throws {
        try withScratchDirectory { directory in
            let path = directory + "/sock"
            let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(listener) }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            try #require(bound == 0 && listen(listener, 1) == 0)
            let reader = BackgroundReader { accept(listener, nil, nil) }

            let target = try OutputTarget(path)
            #expect(target == .socket(path))
            _ = try write("over the socket\n", to: target)
            #expect(reader.bytes() == bytes("over the socket\n"))
            #expect(fileType(path) == S_IFSOCK)
        }
    }

    @Test("/dev/null is a character device: written through, left in place")
    func devNull() throws {
        let target = try OutputTarget("/dev/null")
        #expect(target == .device("/dev/null"))
        #expect(try write("discarded\n", to: target).bytes == 10)
        #expect(fileType("/dev/null") == S_IFCHR)
    }

    @Test("/dev/full fails with No space left on device and stays a device",
          .enabled(if: FileManager.default.fileExists(atPath: "/dev/full")))
    func devFull() throws {
        let error = #expect(throws: OutputError.self) { try write("does not fit\n", to: OutputTarget("/dev/full")) }
        #expect(error?.path == "/dev/full")
        #expect(error?.reason == "No space left on device")
        #expect(fileType("/dev/full") == S_IFCHR)
    }

    @Test("a folder and a loop of links are refused, naming the output")
    func refused() throws {
        try withScratchDirectory { directory in
            let folder = #expect(throws: OutputError.self) { try OutputTarget(directory) }
            #expect(folder?.reason == "is a folder, not a file")
            #expect(symlink("loop-b", directory + "/loop-a") == 0)
            #expect(symlink("loop-a", directory + "/loop-b") == 0)
            let loop = #expect(throws: OutputError.self) { try OutputTarget(directory + "/loop-a") }
            #expect(loop?.path == directory + "/loop-a")
            #expect(loop?.reason.contains("symbolic links") == true)
        }
    }
}
