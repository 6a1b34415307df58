/// The kinds of data crubatch loads, in dependency order (a kind only references earlier ones).
public enum Kind: String, Sendable, CaseIterable, Codable {
    case campuses, ministries, leaders, students, teams, groups, memberships, events, missions, resources

    /// The CSV file name of this kind (`groups.csv`): nightly's data files, rejects folders, hints.
    public var fileName: String { "\(rawValue).csv" }

    /// The extensions of the files `import --dir` recognises: CSV and Excel workbooks.
    private static let importExtensions = [".csv", ".xlsx"]

    /// The kind a file name stands for (`groups.csv`, `Groups.CSV`, `groups.xlsx`), if any.
    public init?(fileName: String) {
        let lower = fileName.lowercased()
        guard let suffix = Self.importExtensions.first(where: { lower.hasSuffix($0) }) else { return nil }
        self.init(rawValue: String(lower.dropLast(suffix.count)))
    }

    /// Why a kind name was not understood, with the accepted values.
    public static var acceptedList: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
