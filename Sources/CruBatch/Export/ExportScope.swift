import PostgresClient

/// Which part of the data a roster or calendar covers.
public enum ExportScope: Sendable, Equatable {
    case everything
    case group(String)
    case ministry(String)
    case campus(String)

    /// The one code a narrowed scope names: what it is (for people), the code column it matches
    /// (over `g` community_groups, `mi` ministries, `c` campuses) and the code.
    private var narrowing: (noun: String, column: SQLFragment, code: String)? {
        switch self {
        case .everything: nil
        case .group(let code): ("group", "g.code", code)
        case .ministry(let code): ("ministry", "mi.code", code)
        case .campus(let code): ("campus", "c.code", code)
        }
    }

    /// SQL condition over `g` (community_groups), `mi` (ministries) and `c` (campuses).
    var condition: PostgresQuery {
        guard let narrowing else { return "true" }
        return "\(unescaped: narrowing.column) = \(narrowing.code.lowercased())"
    }

    var label: String {
        narrowing.map { "\($0.noun) \($0.code)" } ?? "everything"
    }
}
