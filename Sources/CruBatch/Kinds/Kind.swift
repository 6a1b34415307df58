/// The kinds of data crubatch loads, in dependency order (a kind only references earlier ones).
public enum Kind: String, Sendable, CaseIterable, Codable {
    case campuses, ministries, leaders, students, teams, groups, memberships, events, missions, resources

    /// The file `import --dir` recognises for this kind.
    public var fileName: String { "\(rawValue).csv" }

    /// The kind a file name stands for (`groups.csv`, `Groups.CSV`), if any.
    public init?(fileName: String) {
        let lower = fileName.lowercased()
        guard lower.hasSuffix(".csv") else { return nil }
        self.init(rawValue: String(lower.dropLast(4)))
    }

    /// Why a kind name was not understood, with the accepted values.
    public static var acceptedList: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
