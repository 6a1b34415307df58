#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why an output could not be written (exit 73).
public struct OutputError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): cannot write: \(reason)" }

    public static func fromErrno(_ path: String) -> OutputError {
        OutputError(path: path, reason: String(cString: strerror(errno)))
    }
}
