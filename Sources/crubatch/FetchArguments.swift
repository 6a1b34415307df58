import ArgumentParser
import CruBatch
import Foundation

/// How `import` and `validate` fetch a URL given as the FILE: time and size limits, and the
/// certificate authorities to trust.
struct FetchArguments: ParsableArguments {
    @Option(help: ArgumentHelp("For a URL: give up after this many seconds for the whole download (default 120).",
                               valueName: "SECONDS"))
    var fetchTimeout: Double = 120

    @Option(help: ArgumentHelp("For a URL: refuse a file larger than this (bytes, or with kB, MB, GB; default 200MB).",
                               valueName: "SIZE"))
    var maxBytes: String = "200MB"

    @Option(help: ArgumentHelp("For an https URL: trust the certificate authorities in this PEM file (default: CURL_CA_BUNDLE, else the system's).",
                               valueName: "FILE"))
    var cacert: String?

    @Flag(help: "For a URL: follow a redirect from the internet to this machine or a private network (refused by default: that is how a link reaches a cloud's metadata service or a local port).")
    var allowPrivateRedirects = false

    func validate() throws {
        guard fetchTimeout > 0 else { throw ValidationError("--fetch-timeout must be more than 0 seconds") }
        guard Self.bytes(maxBytes) != nil else {
            throw ValidationError("--max-bytes takes a size such as 50MB, 200000 or 1GB (got \"\(maxBytes)\")")
        }
    }

    func apply(to options: inout FetchOptions) {
        options.timeout = fetchTimeout
        options.maxBytes = Self.bytes(maxBytes) ?? options.maxBytes
        let bundle = ProcessInfo.processInfo.environment["CURL_CA_BUNDLE"].flatMap { $0.isEmpty ? nil : $0 }
        options.caBundle = cacert ?? bundle
        options.allowPrivateRedirects = allowPrivateRedirects
    }

    /// `200MB`, `512kB`, `1GB` (powers of 1000) or a number of bytes; nil when it is none of them.
    static func bytes(_ text: String) -> Int64? {
        let units: [(String, Int64)] = [("gb", 1_000_000_000), ("mb", 1_000_000), ("kb", 1_000), ("b", 1)]
        let lowered = text.lowercased().trimmingCharacters(in: .whitespaces)
        let (unit, factor) = units.first { lowered.hasSuffix($0.0) } ?? ("", 1)
        guard let number = Int64(lowered.dropLast(unit.count).trimmingCharacters(in: .whitespaces)), number > 0
        else { return nil }
        let (product, overflow) = number.multipliedReportingOverflow(by: factor)
        return overflow ? nil : product
    }
}
