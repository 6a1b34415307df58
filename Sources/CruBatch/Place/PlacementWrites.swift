import CSVStream
import PostgresClient

/// What `place` writes, a few statements for a whole file: the students, their ministries and their
/// joins. Each answer is decided in memory as if the answers before it were written one by one, and
/// the rows come out as that would leave them.
extension Placement {
    /// A person's columns that an answer sets, as the database gives them as text: the cells of
    /// `studentRows` in its order (the email in lower case, as compared), and whether they are a member.
    private struct PersonRow: Equatable {
        var cells: [String?]
        var isMember: Bool
    }

    /// The columns of students.csv that an answer sets, in the catalog's order: every one but the
    /// ministries, which `addMinistries` adds (an answer removes none). `place` writes them as `import`
    /// does.
    private static let studentRows = KindCatalog.students.restricted(
        to: KindCatalog.students.columns.filter { $0.list == nil }.map(\.name))

    /// How an answer fills each column of `studentRows`, in its order (`Student.filling`).
    private static let fillings = studentRows.columns.map { Student.filling($0.name) }

    /// Saves the students (`savePeople`, which sets their `personID`), then the ministries they
    /// chose (`addMinistries`). `work` runs here while the server writes the students. Many new
    /// students in a table holding fewer (a first placement) are a first load: the keys of both
    /// tables are checked once, after both writes (`BulkLoadKeys`).
    mutating func saveStudents(_ students: inout [Student], while work: () throws -> Void) throws {
        guard !students.isEmpty else { return try work() }
        let keys = try savePeople(&students, while: work)
        try addMinistries(students)
        try keys?.restore(connection: connection)
    }

    /// Saves every student through the students kind's staging table and merge: a later answer of
    /// the same student updates what an earlier one wrote; a blank phone or graduation year keeps the
    /// stored one. Each answer counts as inserted, updated or unchanged, and each student gets their
    /// person id. Returns the keys it dropped, for `saveStudents` to restore.
    private mutating func savePeople(_ students: inout [Student],
                                     while work: () throws -> Void) throws -> BulkLoadKeys? {
        let emails = Array(Set(students.map(\.email)))
        let stored = try storedPeople(emails)
        var saved = stored
        var order: [String] = [], ordered = Set<String>()
        // Each new student's first answer.
        var new: [Student] = []
        for student in students {
            let before = saved[student.email]
            let after = PersonRow(cells: Self.cells(of: student, keeping: before), isMember: true)
            let change: PersonChange = before == nil ? .inserted : before == after ? .unchanged : .updated
            people[change, default: 0] += 1
            if before == nil { new.append(student) }
            if ordered.insert(student.email).inserted { order.append(student.email) }
            saved[student.email] = after
        }
        try warnOfPossibleDuplicates(new)
        let keys = try BulkLoadKeys.dropIfWorthIt(table: "people", tables: ["people", "person_ministries"],
                                                  newRows: order.count - stored.count, connection: connection)
        // Every student's row is written (and so locked until the run commits), an unchanged one
        // left as it is.
        try merge(order.map { saved[$0]!.cells }, as: Self.studentRows, while: work)
        var ids: [String: String] = [:]
        for row in try connection.query("""
            select lower(email), id from people where lower(email) = any(\(emails)::text[])
            """).rows {
            ids[try row.decode(String.self, 0)] = try row.decode(String.self, 1)
        }
        for index in students.indices {
            guard let id = ids[students[index].email] else {
                throw PostgresError(kind: .decoding,
                                    message: "saving the student on line \(students[index].answer.line) returned no row")
            }
            students[index].personID = id
        }
        return keys
    }

    /// The cells `student`'s answer saves, in the order of `studentRows`: a blank keeps the cell of
    /// `before` (the person as saved before it) where the column's `filling` says so.
    private static func cells(of student: Student, keeping before: PersonRow?) -> [String?] {
        fillings.indices.map { index in
            fillings[index].value(student) ?? (fillings[index].keepsStored ? before?.cells[index] : nil)
        }
    }

    /// The stored people `emails` name, by email in lower case, each read back as `import` would
    /// read its cells (`ColumnSpec.exportExpression`).
    private func storedPeople(_ emails: [String]) throws -> [String: PersonRow] {
        let spec = Self.studentRows
        let key = spec.comparedKeys(over: "t")[0].expression
        let cells = SQLFragment(joining: spec.columns.map { $0.isKey ? key : $0.exportExpression }, separator: ", ")
        var stored: [String: PersonRow] = [:]
        for row in try connection.query("""
            select \(unescaped: key), \(unescaped: cells), t.is_member
            from \(identifier: spec.table) t \(unescaped: spec.referenceJoins) where \(unescaped: key) = any(\(emails)::text[])
            """).rows {
            stored[try row.decode(String.self, 0)] = PersonRow(
                cells: try spec.columns.indices.map { try row.decode(String?.self, $0 + 1) },
                isMember: try row.decode(Bool.self, spec.columns.count + 1))
        }
        return stored
    }

    /// A `possible-duplicate` warning per new student who is probably someone already: a person known,
    /// or a student of an earlier answer (`NewPeopleMatches`), as `import students` warns. Each new
    /// student's first answer (`new`) is compared, staged as `import` stages a file, before any is saved.
    private mutating func warnOfPossibleDuplicates(_ new: [Student]) throws {
        guard !new.isEmpty else { return }
        let rows = new.map { (line: $0.answer.line, cells: Self.cells(of: $0, keeping: nil)) }
        let matches = try staging(rows, as: Self.studentRows) {
            try NewPeopleMatches(connection: connection).matches(of: "select * from stage")
        }
        let columns = Dictionary(new.map { ($0.answer.line, $0.answer.emailColumn) }, uniquingKeysWith: { a, _ in a })
        diagnostics += matches.map { match in
            Diagnostic(file: file, line: match.line, column: columns[match.line] ?? nil, field: PlaceField.email.rawValue,
                       code: .possibleDuplicate, message: match.message, hint: match.hint)
        }
    }

    /// Runs `body` with `rows` (each with its line) in the table `stage` of the run's `WorkSchema`, staged by `spec`'s
    /// `StagingEncoder` as `import` stages a file; drops the table after.
    private func staging<T>(_ rows: [(line: Int, cells: [String?])], as spec: KindSpec,
                            _ body: () throws -> T) throws -> T {
        let encoder = StagingEncoder(spec: spec)
        try connection.execute(encoder.createTable)
        defer { try? connection.execute("drop table if exists stage") }
        var staged: [UInt8] = []
        for row in rows { encoder.append(line: row.line, values: row.cells, to: &staged) }
        try connection.copyIn(encoder.copySQL) { try $0.send(staged) }
        return try body()
    }

    /// Writes rows of `spec`'s columns, staged as `import` stages a file, in one statement
    /// (`MergeSQL.upsert`): new ones in the order of `rows`, a stored one updated when it differs and
    /// locked until the run commits in any case. The rows hold every value (a kept phone included).
    /// `work` runs here while the server merges. Returns how many rows it inserted or updated.
    @discardableResult
    private func merge(_ rows: [[String?]], as spec: KindSpec, updatingOnlyWhere condition: SQLFragment? = nil,
                       while work: () throws -> Void = {}) throws -> Int {
        let upsert = MergeSQL(spec: spec, blank: .clear).upsert(updatingOnlyWhere: condition)
        return try staging(rows.enumerated().map { ($0.offset + 1, $0.element) }, as: spec) {
            try connection.query(upsert, while: work).result.rows.count
        }
    }

    /// Adds the ministries each student chose and did not have, in one statement, numbered after the
    /// ones they have: the numbers an answer at a time would give them.
    private func addMinistries(_ students: [Student]) throws {
        let choosing = students.filter { !$0.chosen.isEmpty }
        guard !choosing.isEmpty else { return }
        var held = Set<String>()
        var last: [String: Int] = [:]
        for row in try connection.query("""
            select person_id, ministry_id, position from person_ministries
            where person_id = any(\(Array(Set(choosing.map(\.personID))))::bigint[])
            """).rows {
            let person = try row.decode(String.self, 0)
            held.insert(person + "/" + (try row.decode(String.self, 1)))
            last[person] = max(last[person] ?? 0, try row.decode(Int.self, 2))
        }
        var added: (people: [String], ministries: [String], positions: [Int]) = ([], [], [])
        for student in choosing {
            let person = student.personID, base = last[person] ?? 0
            for (offset, ministry) in student.chosen.enumerated()
            where held.insert(person + "/" + ministry.id).inserted {
                added.people.append(person)
                added.ministries.append(ministry.id)
                added.positions.append(base + offset + 1)
                last[person] = max(last[person] ?? 0, base + offset + 1)
            }
        }
        guard !added.people.isEmpty else { return }
        try connection.query("""
            insert into person_ministries (person_id, ministry_id, position)
            select * from unnest(\(added.people)::bigint[], \(added.ministries)::bigint[],
                                 \(added.positions)::smallint[])
            on conflict (person_id, ministry_id) do nothing
            """)
    }

    /// The student joins the group, written with the joins around it by `writeJoins`; false when they
    /// are a member already, which writes nothing.
    mutating func join(_ group: PlaceGroup, student: Student) throws -> Bool {
        guard !memberships.isMember(student.personID, of: group.id) else { return false }
        pendingJoins.append((group.code, student.email))
        memberships.join(student.personID, group: group)
        return true
    }

    /// The columns of memberships.csv that a join sets, in the order `writeJoins` stages them: a
    /// membership `place` makes, or makes current again, is active from now and comes from `place`.
    private static let joinRows: KindSpec = {
        var spec = KindCatalog.memberships.restricted(to: ["group", "email", "joined_at", "status"])
        spec.derived = [TargetColumn(name: "source", resolve: "'place'", insertDefault: "'place'")]
        return spec
    }()

    /// Writes the joins decided so far, in file order, as `import` merges memberships.csv. A
    /// membership that ended is made current again, as joining anew; a current one is never
    /// rewritten (its `joined_at` stays), whatever the run believed.
    mutating func writeJoins() throws {
        guard !pendingJoins.isEmpty else { return }
        membershipsInserted += try merge(pendingJoins.map { [$0.group, $0.email, nil, "active"] }, as: Self.joinRows,
                                         updatingOnlyWhere: KindCatalog.membershipEnd.isRetired(over: "t"))
        pendingJoins.removeAll()
    }
}

extension Placement.Student {
    /// How an answer fills students.csv column `name`: the student's cell, as `import` stages it
    /// (nil: blank), and whether a blank keeps the stored value (a phone, a graduation year) rather
    /// than clearing it.
    fileprivate static func filling(_ name: String) -> (value: @Sendable (Self) -> String?, keepsStored: Bool) {
        switch name {
        case "email": ({ $0.email }, false)
        case "first_name": ({ $0.answer.firstName }, false)
        case "last_name": ({ $0.answer.lastName }, false)
        case "phone": ({ $0.answer.phone }, true)
        case "sex": ({ $0.sex }, false)
        case "school_year": ({ $0.answer.schoolYear.map(String.init) }, false)
        case "grad_year": ({ $0.answer.gradYear.map(String.init) }, true)
        case "campus": ({ $0.campus.code }, false)
        default: preconditionFailure("an answer fills no students.csv column \(name)")
        }
    }
}

/// The current memberships (not `left`) of a run's students, kept as the run places and moves them.
struct StudentMemberships {
    private struct Membership {
        let group: String
        let ministry: String
        let code: String
        /// Seconds since 1970; this run's joins all have the transaction's start.
        let joinedAt: Double
    }

    private var byPerson: [String: [Membership]] = [:]
    /// The transaction's start (`now()`), when this run's joins are made.
    private var now = 0.0

    /// The current memberships of `people`.
    static func load(of people: [String], connection: PostgresConnection) throws -> StudentMemberships {
        var memberships = StudentMemberships()
        memberships.now = try connection.query("select extract(epoch from now())::float8").scalar(Double.self)
        for row in try connection.query("""
            select m.person_id, m.group_id, g.ministry_id, g.code, extract(epoch from m.joined_at)::float8
            from memberships m join community_groups g on g.id = m.group_id
            where m.person_id = any(\(Array(Set(people)))::bigint[])
            and \(unescaped: KindCatalog.membershipEnd.isCurrent(over: "m"))
            """).rows {
            memberships.byPerson[try row.decode(String.self, 0), default: []].append(Membership(
                group: try row.decode(String.self, 1), ministry: try row.decode(String.self, 2),
                code: try row.decode(String.self, 3), joinedAt: try row.decode(Double.self, 4)))
        }
        return memberships
    }

    /// The group (its position in `groups`) the person joined first, then by code, among the groups
    /// in use of `ministries`.
    func first(of person: String, in ministries: Set<String>, inUse groups: [String: Int]) -> Int? {
        byPerson[person, default: []].filter { ministries.contains($0.ministry) && groups[$0.group] != nil }
            .min { ($0.joinedAt, $0.code) < ($1.joinedAt, $1.code) }.flatMap { groups[$0.group] }
    }

    func isMember(_ person: String, of group: String) -> Bool {
        byPerson[person, default: []].contains { $0.group == group }
    }

    mutating func join(_ person: String, group: PlaceGroup) {
        byPerson[person, default: []].append(Membership(group: group.id, ministry: group.ministryID, code: group.code,
                                                        joinedAt: now))
    }

    mutating func end(_ person: String, group: String) {
        byPerson[person]?.removeAll { $0.group == group }
    }
}
