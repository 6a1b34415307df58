/// What `nightly` wrote: the dated folder, its files and rows, and the manifest itself.
public struct NightlyReport: Sendable, CommandReport {
    public let folder: String
    public let files: Int
    public let rows: Int
    public let manifest: NightlyExport.Manifest

    public init(folder: String, manifest: NightlyExport.Manifest) {
        self.folder = folder
        self.files = manifest.files.count
        self.rows = manifest.files.reduce(0) { $0 + $1.rows }
        self.manifest = manifest
    }

    public var text: String {
        let skipped = manifest.errors.isEmpty ? "" : "; skipped \(manifest.errors.count), listed under errors in manifest.json"
        return "wrote \(files) files (\(rows) rows) to \(folder)\(skipped)"
    }
}
