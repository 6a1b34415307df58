/// The kinds of data crubatch loads, in dependency order (a kind only references earlier ones).
/// New kinds go last, so that the kinds before keep their place (and their import lock).
public enum Kind: String, Sendable, CaseIterable, Codable {
    case campuses, ministries, leaders, students, teams, groups, memberships, events, missions, resources, terms
    case rideOffers = "ride-offers", rideRequests = "ride-requests"
    case attendance

    /// The CSV file name of this kind (`groups.csv`): nightly's data files, rejects folders, hints.
    public var fileName: String { "\(rawValue).csv" }

    /// The kind a file name stands for (`groups.csv`, `Groups.CSV`, `groups.xlsx`), if any.
    public init?(fileName: String) {
        let lower = fileName.lowercased()
        guard let suffix = FileFormat.folderEndings.first(where: { lower.hasSuffix($0) }) else { return nil }
        self.init(rawValue: String(lower.dropLast(suffix.count)))
    }

    /// The kind's columns, as `export` names them (and `--map` maps to).
    public var columnNames: [String] { KindSpec.of(self).columns.map(\.name) }

    /// `first_name+last_name`, the `--map` column that splits a whole name into the two, for a kind
    /// that has both; nil for the others.
    public var wholeNameSplit: String? {
        columnNames.contains("first_name") && columnNames.contains("last_name") ? FullName.mapping : nil
    }

    /// One row of the kind, in messages and headers: `campus`, `ministry`, `group` ...
    public var noun: String { Self.singular(of: rawValue) }

    /// `campuses` -> `campus`, `ministries` -> `ministry`, `leaders` -> `leader`.
    static func singular(of word: String) -> String {
        if word.hasSuffix("ies") { return word.dropLast(3) + "y" }
        if word.hasSuffix("uses") { return String(word.dropLast(2)) }
        return word.hasSuffix("s") ? String(word.dropLast()) : word
    }

    /// Why a kind name was not understood, with the accepted values.
    public static var acceptedList: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

extension Kind {
    /// The kinds whose rows are people or name them (a group's leaders, a membership's student, a
    /// ride's driver), derived from the catalog: a new kind that names people is among them.
    static var holdingPeople: [Kind] {
        allCases.filter { kind in
            let spec = KindSpec.of(kind)
            return spec.table == PersonalColumns.people || spec.references.contains { $0.reference.table == PersonalColumns.people }
        }
    }
}
