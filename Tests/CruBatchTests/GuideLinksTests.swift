import CruBatchTestSupport
import Foundation
import Testing

/// The README and the user guide link to each other by section: every relative link names a file
/// that exists, and every `#anchor` a heading of that page (as GitHub makes anchors of headings).
@Suite("the README and the user guide")
struct GuideLinksTests {
    private static let root = TestEnvironment.root

    /// The README, the guide's pages and the design page.
    private static var pages: [String] {
        let guide = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs/guide").path)) ?? []
        return ["README.md", "docs/ARCHITECTURE.md"] + guide.filter { $0.hasSuffix(".md") }.sorted().map { "docs/guide/" + $0 }
    }

    /// The anchors of a page's headings, code blocks left out.
    private static func anchors(of path: String) throws -> Set<String> {
        var inCode = false
        var found: Set<String> = []
        for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inCode.toggle() }
            guard !inCode, let heading = line.firstMatch(of: /^#{1,6} (.+)$/)?.output.1 else { continue }
            let kept = heading.lowercased().unicodeScalars.filter {
                CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == " " || $0 == "_"
            }
            found.insert(String(String.UnicodeScalarView(kept)).replacingOccurrences(of: " ", with: "-"))
        }
        return found
    }

    @Test("the README fits on a few screens and links to every page of the guide")
    func readmeIsAFrontPage() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.split(separator: "\n", omittingEmptySubsequences: false).count <= 350)
        for page in Self.pages where page.hasPrefix("docs/guide/") {
            #expect(readme.contains("](\(page)"), "README links to no \(page)")
        }
    }

    @Test("every relative link names a file that exists, and every anchor a heading of its page")
    func linksResolve() throws {
        #expect(Self.pages.count > 5)
        for page in Self.pages {
            let path = Self.root.appendingPathComponent(page)
            let text = try String(contentsOf: path, encoding: .utf8)
            for match in text.matches(of: /\]\(([^)\s]+)\)/) {
                let link = String(match.output.1)
                if link.firstMatch(of: /^[a-z]+:/) != nil { continue }
                let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let target = parts[0].isEmpty ? path : path.deletingLastPathComponent().appendingPathComponent(parts[0]).standardized
                #expect(FileManager.default.fileExists(atPath: target.path), "\(page): \(link) names no file")
                if parts.count == 2, target.pathExtension == "md", FileManager.default.fileExists(atPath: target.path) {
                    #expect(try Self.anchors(of: target.path).contains(parts[1]), "\(page): \(link) names no heading")
                }
            }
        }
    }
}
