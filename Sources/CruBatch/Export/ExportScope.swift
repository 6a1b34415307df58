import PostgresClient

/// Which part of the data a roster or calendar covers.
public enum ExportScope: Sendable, Equatable {
    case everything
    case group(String)
    case ministry(String)
    case campus(String)

    /// SQL condition over `g` (community_groups), `mi` (ministries) and `c` (campuses).
    var condition: PostgresQuery {
        switch self {
        case .everything: "true"
        case .group(let code): "g.code = \(code.lowercased())"
        case .ministry(let code): "mi.code = \(code.lowercased())"
        case .campus(let code): "c.code = \(code.lowercased())"
        }
    }

    var label: String {
        switch self {
        case .everything: "everything"
        case .group(let code): "group \(code)"
        case .ministry(let code): "ministry \(code)"
        case .campus(let code): "campus \(code)"
        }
    }
}
