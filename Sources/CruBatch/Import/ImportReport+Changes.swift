/// The text of what a load changes: row by row for a preview, in counts for a run that wrote.
extension ImportReport {
    /// Per file, the rows a preview would insert, update (each changed field `old -> new`) and
    /// restore, at most `diffLimit` rows of each, then `... and N more`.
    public var changeLines: [String] {
        files.flatMap { counts -> [String] in
            guard let changes = counts.changes else { return [] }
            let kind = counts.kind.rawValue
            return limited(changes.inserted.map { ["\(kind): would insert \($0)"] })
                + limited(changes.updated.map { ["\(kind): would update \($0.key)"] + $0.fields.map(Self.fieldLine) })
                + limited(changes.restored.map { ["\(kind): would restore \($0.key)"] + $0.fields.map(Self.fieldLine) })
        }
    }

    /// What follows from the load: the memberships it ends, the members of the groups it archives
    /// (row by row in a preview, counted otherwise), and the messages it queues per kind.
    public var effectLines: [String] {
        guard let effects else { return [] }
        var lines: [String] = []
        let ended = effects.endedMemberships
        if wrote {
            if !ended.isEmpty { lines.append("memberships: ended \(ended.count)") }
            let members = effects.archivedGroups.reduce(0) { $0 + $1.members.count }
            if members > 0 { lines.append("groups: \(members) current member\(members == 1 ? "" : "s") left the rosters of the archived groups") }
        } else {
            // A memberships sync lists the ones it ends as archived rows already.
            let listed = Set(files.filter { $0.kind == .memberships }.flatMap(\.archivedRows))
            lines += limited(ended.filter { !listed.contains($0) }.map { ["memberships: would end \($0)"] })
            lines += effects.archivedGroups.flatMap { group in
                ["groups: archiving \(group.group) takes \(group.members.count) current member\(group.members.count == 1 ? "" : "s") off its roster"]
                    + limited(group.members.map { ["    \($0)"] })
            }
        }
        for suppressed in [false, true] {
            let queued = effects.queuedMessages.filter { $0.suppressed == suppressed }
            guard !queued.isEmpty else { continue }
            let counts = queued.map { "\($0.count) \($0.kind)" }.joined(separator: ", ")
            lines.append(suppressed ? "messages: \(wrote ? "recorded" : "would record") \(counts) as suppressed, never sent"
                         : "messages: \(wrote ? "queued" : "would queue") \(counts)")
        }
        return lines
    }

    /// `    name: "Freshmen Men" -> "Freshmen Men (Monday)"`.
    static func fieldLine(_ change: FieldChange) -> String {
        "    \(change.column): \(shown(change.old)) -> \(shown(change.new))"
    }

    /// A value in quotes (so spaces show), or `(blank)`.
    private static func shown(_ value: String?) -> String {
        guard let value, !value.isEmpty else { return "(blank)" }
        return "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// The lines of the first `diffLimit` rows, then `    ... and N more` for the rest.
    private func limited(_ rows: [[String]]) -> [String] {
        guard let limit = diffLimit, rows.count > limit else { return rows.flatMap { $0 } }
        return rows.prefix(limit).flatMap { $0 } + ["    ... and \(rows.count - limit) more"]
    }
}
