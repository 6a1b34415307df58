import Foundation
import PostgresClient

/// The part of a kind that a file is the complete list of, for `import --sync`.
public enum SyncScope: Sendable, Equatable {
    /// Every row of the kind (for memberships: of each group the file names).
    case everything
    /// The rows that belong to one campus (`--scope campus=CODE`).
    case campus(String)
    /// The rows that belong to one ministry (`--scope ministry=CODE`).
    case ministry(String)

    /// `campus=CODE` or `ministry=CODE`, as `--scope` takes it.
    public init?(argument: String) {
        let parts = argument.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, !parts[1].isEmpty else { return nil }
        switch parts[0].lowercased() {
        case "campus": self = .campus(parts[1].lowercased())
        case "ministry": self = .ministry(parts[1].lowercased())
        default: return nil
        }
    }
}

/// How many rows one sync may archive before it refuses.
public enum ArchiveLimit: Sendable, Equatable, CustomStringConvertible {
    /// Up to 5 rows, or up to 10% of the scope when that is more.
    case standard
    /// `--max-archive N`.
    case rows(Int)
    /// `--max-archive P%`: a share of the scope.
    case percent(Double)

    /// `N` or `P%`, as `--max-archive` takes it.
    public init?(argument: String) {
        if argument.hasSuffix("%") {
            guard let percent = Double(argument.dropLast()), (0...100).contains(percent) else { return nil }
            self = .percent(percent)
        } else {
            guard let rows = Int(argument), rows >= 0 else { return nil }
            self = .rows(rows)
        }
    }

    func allows(_ count: Int, of scope: Int) -> Bool {
        switch self {
        case .standard: count <= 5 || Double(count) <= 0.1 * Double(scope)
        case .rows(let rows): count <= rows
        case .percent(let percent): Double(count) <= percent / 100 * Double(scope)
        }
    }

    public var description: String {
        switch self {
        case .standard: "the limit (10% of the scope or 5 rows)"
        case .rows(let rows): "--max-archive \(rows)"
        case .percent(let percent): "--max-archive \(String(format: "%g", percent))%"
        }
    }
}

/// `import --sync` for one file, after its merge: the rows of the scope that the file does not list
/// are archived (memberships ended), unless there are more of them than the limit allows, in which
/// case the whole load is refused. A file without rows never archives anything.
struct SyncStep {
    let spec: KindSpec
    let retirement: Retirement
    /// SQL over `t`: the rows the file is the complete list of.
    let scope: SQLFragment
    /// The scope in messages: "campus cuesta", "the groups the file names".
    let scopeLabel: String
    let limit: ArchiveLimit

    /// What a sync did, or would do, or why it refused.
    struct Outcome {
        /// The rows archived (or that would be), by their key as `KindSpec.keyLabel` names it.
        var rows: [String] = []
        var refusal: String?
    }

    /// Checks that the kind can be synced within `scope` and finds the scope's campus or ministry.
    init(spec: KindSpec, scope: SyncScope, limit: ArchiveLimit, connection: PostgresConnection) throws {
        let kind = spec.kind.rawValue
        guard let retirement = spec.retirement else {
            throw CruBatchError.usage("\(kind) cannot be synced: people are never archived (to erase one person's data, use `crubatch forget EMAIL`)")
        }
        self.spec = spec
        self.retirement = retirement
        self.limit = limit
        if let fileScope = spec.fileScope {
            let owner = spec.columns.first { $0.name == spec.belongsTo }?.reference?.noun ?? "row"
            guard scope == .everything else {
                throw CruBatchError.usage("a \(kind) sync covers each \(owner) its file names; --scope does not apply")
            }
            self.scope = fileScope
            scopeLabel = "the \(owner)s the file names"
            return
        }
        let reference: Reference, code: String
        switch scope {
        case .everything:
            self.scope = "true"
            scopeLabel = "all \(kind)"
            return
        case .campus(let value): (reference, code) = (.campus, value)
        case .ministry(let value): (reference, code) = (.ministry, value)
        }
        guard let id = try connection.query("""
            select id from \(identifier: reference.table) where code = \(code)
            """).scalar(Int?.self) else {
            throw CruBatchError.usage("--scope: no \(reference.noun) \"\(code)\" (see `crubatch export \(reference.definedIn.rawValue)`)")
        }
        guard let condition = spec.belongs("t", to: reference, id: id) else {
            throw CruBatchError.usage("\(kind) cannot be synced per \(reference.noun): its rows name no \(reference.noun)")
        }
        self.scope = condition
        scopeLabel = "\(reference.noun) \(code)"
    }

    /// Archives the current rows of the scope that none of the `staged` rows lists, or refuses.
    func run(on connection: PostgresConnection, staged: Int) throws -> Outcome {
        let kind = spec.kind.rawValue
        guard staged > 0 else {
            return Outcome(refusal: "the file lists no \(kind): a sync of an empty file would archive every row in scope (\(scopeLabel)), so an empty file never archives anything")
        }
        let current: SQLFragment = "\(scope) and \(retirement.isCurrent(over: "t"))"
        let missing = try connection.query("""
            select t.id, \(unescaped: spec.keyLabel) from \(identifier: spec.table) t \(unescaped: spec.referenceJoins)
            where \(unescaped: current) and not exists (select 1 from (\(unescaped: spec.resolveSQL)) n where \(unescaped: spec.keyMatch))
            order by 2
            """).rows
        let ids = try missing.map { try $0.decode(Int.self, 0) }
        let outcome = Outcome(rows: try missing.map { try $0.decode(String.self, 1) })
        guard !ids.isEmpty else { return outcome }
        let inScope = try connection.query("select count(*) from \(identifier: spec.table) t where \(unescaped: current)")
            .scalar(Int.self)
        guard limit.allows(ids.count, of: inScope) else {
            let share = Int((100 * Double(ids.count) / Double(inScope)).rounded())
            return Outcome(rows: outcome.rows, refusal: """
                it would archive \(ids.count) of the \(inScope) \(kind) in scope (\(scopeLabel)), \(share)%, more than \
                \(limit) allows; check the file, or allow it with --max-archive \(ids.count)
                """)
        }
        try connection.query("update \(identifier: spec.table) set \(unescaped: retirement.retire) where id = any(\(ids)::bigint[])")
        return outcome
    }
}
