import CSVStream
import Foundation
import PostgresClient

/// How `crubatch place` reads and writes.
public struct PlaceOptions: Sendable {
    /// Do everything in the transaction, report, then roll back.
    public var dryRun = false
    /// Question titles of the export for fields the built-in names do not recognise (`--map`).
    public var columnMap: [PlaceField: String] = [:]
    public var encoding: TextEncoding = .utf8
    /// The workbook sheet to read (default: the first); only for .xlsx files.
    public var sheet: String?
    /// The name diagnostics use for the file (default: the path).
    public var displayName: String?
    /// What the placements queue: leaders' notifications and students' welcomes by default;
    /// `--no-welcome` leaves the welcomes out, `--no-notify` records everything as suppressed.
    public var messages = JoinMessages(notify: true, welcome: true)

    public init() {}
}

/// Places "Get Involved" questionnaire answers into community groups.
///
/// For each answer, in file order, in one transaction:
/// 1. the student is upserted into `people` (matched on lower(email); name, phone in E.164, sex,
///    school year and campus set; a blank phone keeps the stored one; someone who only asked for a
///    ride becomes a member) and the chosen ministries are added to `person_ministries`;
/// 2. a student already in a group of one of the chosen ministries is not placed again while that group
///    still fits the answer; when it no longer does (a new answer with other times), the student is
///    placed again, and the move ends the old membership in the same transaction;
/// 3. candidate groups are those of the chosen ministries (all on the chosen campus) whose sex
///    (men/women/mixed) admits the student, whose audience takes the student's school year
///    (freshmen 1 ... graduates 5, mixed any, faculty never), that meet **for the whole meeting**
///    (90 minutes from `meeting_time`) inside the availability, and that have room (capacity null is
///    unlimited; existing memberships and this run's placements count);
/// 4. the group with the fewest members wins; ties go to the earliest meeting in the week (Monday
///    first, then time), then the code. The membership is inserted with source `place`, status
///    `active`, and its AFTER INSERT trigger queues the leaders' notifications and the student's
///    welcome (`PlaceOptions.messages`).
///
/// Archived groups (and those of archived ministries and campuses) take no one, and only current
/// members (not those who left) fill a group. Each run is recorded in `import_runs` (kind `place`),
/// and what it changed in `run_changes`, so `crubatch undo` can take it back.
public struct Placer {
    /// How long a community group meets, for matching availability.
    public static let meetingMinutes = 90

    let options: PlaceOptions

    public init(options: PlaceOptions = PlaceOptions()) {
        self.options = options
    }

    /// Reads the whole file first (a missing file is exit 66 and an unreadable one exit 65, without
    /// touching the database), then connects with `connect` and places.
    public func run(path: String, connect: () throws -> PostgresConnection) throws -> PlaceReport {
        let started = Date()
        let displayName = options.displayName ?? path
        let contents = try QuestionnaireReader(path: path, displayName: displayName, overrides: options.columnMap,
                                               encoding: options.encoding, sheet: options.sheet).read()
        var report = PlaceReport(file: displayName)
        report.dryRun = options.dryRun
        report.sha256 = contents.sha256
        if let fatal = contents.fatal {
            report.unreadable = true
            report.diagnostics = (contents.warnings + [fatal]).map { $0.inSheet(contents.sheet) }
            report.seconds = Date().timeIntervalSince(started)
            return report
        }
        let connection = try connect()
        try Migrator(connection: connection).requireCurrent()
        var placement = Placement(connection: connection, file: displayName)
        // The groups it places into, the students it writes and their memberships must not change under
        // it: an import of those kinds (a sync archiving a group) waits for place, or place for it.
        let run = WriterRun(
            connection: connection, kind: .place, file: displayName, dryRun: options.dryRun,
            locks: .writers([.students, .groups, .memberships],
                            against: "another crubatch place, or an import of students, groups or memberships,"),
            stages: true)
        let runID = try run.perform { _ in
            try options.messages.apply(on: connection)
            try placement.load()
            let newest = try placement.newestNotification()
            for entry in try placement.placeAll(contents.answers) {
                report.add(entry)
            }
            let queued = try placement.notificationsQueued(after: newest)
            report.counts.notificationsQueued = queued.all
            report.counts.welcomesQueued = queued.welcomes
            report.notificationsSuppressed = !options.messages.notify
            if !options.dryRun {
                try TableStatistics.refresh(["people", "person_ministries", "memberships", "notifications"], connection: connection)
            }
        }.ids[0]
        report.runID = runID
        report.counts.peopleInserted = placement.people[.inserted, default: 0]
        report.counts.peopleUpdated = placement.people[.updated, default: 0]
        report.counts.peopleUnchanged = placement.people[.unchanged, default: 0]
        report.counts.membershipsInserted = placement.membershipsInserted
        report.counts.membershipsEnded = placement.membershipsEnded
        try run.log.finish(runID, status: .succeeded, counts: RunLog.Counts(
            read: report.counts.answers, inserted: report.counts.peopleInserted + report.counts.membershipsInserted,
            updated: report.counts.peopleUpdated, unchanged: report.counts.peopleUnchanged,
            archived: report.counts.membershipsEnded, rejected: report.counts.invalid), sha256: contents.sha256)
        report.diagnostics = (contents.warnings + placement.diagnostics).map { $0.inSheet(contents.sheet) }.sorted {
            ($0.line, $0.column ?? 0) < ($1.line, $1.column ?? 0)
        }
        report.seconds = Date().timeIntervalSince(started)
        return report
    }
}

/// A community group as placement sees it, with its current member count.
struct PlaceGroup {
    let id: String
    let code: String
    let name: String
    let ministryID: String
    let ministryCode: String
    let day: Weekday?
    /// Minutes after midnight.
    let start: Int?
    let time: String?
    let location: String?
    let audience: String?
    let sex: String?
    let capacity: Int?
    var members: Int
    var leaders: [PlaceReport.Leader] = []

    /// Whether the group's sex admits a student of `sex` (male, female, unknown, not-applicable).
    func admits(sex student: String) -> Bool {
        switch sex {
        case nil, "mixed": true
        case "men": student == "male"
        case "women": student == "female"
        default: false
        }
    }

    /// Whether the group's audience takes school year `year` (faculty groups take no student; a
    /// student whose year is not known fits only groups open to every year).
    func takes(year: Int?) -> Bool {
        switch audience {
        case nil, "mixed": true
        case "faculty": false
        default: year != nil && PlaceGroup.audienceYears[audience!] == year
        }
    }

    func meets(within availability: Availability) -> Bool {
        guard let day, let start else { return false }
        return availability.contains(day: day, start: start, minutes: Placer.meetingMinutes)
    }

    /// Whether the group suits a student of this sex, school year and availability (room aside).
    func suits(sex: String, year: Int?, availability: Availability) -> Bool {
        admits(sex: sex) && takes(year: year) && meets(within: availability)
    }

    var hasRoom: Bool { capacity.map { members < $0 } ?? true }

    /// Fewest members, then earliest in the week (Monday first, then time), then code.
    var rank: (Int, Int, Int, String) { (members, day?.rawValue ?? 7, start ?? 1440, code) }

    static let audienceYears = ["freshmen": 1, "sophomores": 2, "juniors": 3, "seniors": 4, "graduates": 5]

    /// The groups in use (`KindCatalog.groupInUse`), by code, each with its current member count.
    static func inUse(connection: PostgresConnection) throws -> [PlaceGroup] {
        try connection.query("""
            select g.id, g.code, g.name, g.ministry_id, mi.code, g.meeting_day, to_char(g.meeting_time, 'HH24:MI'),
                   g.location, g.audience, g.sex, g.capacity,
                   (select count(*) from memberships m where m.group_id = g.id and \(unescaped: KindCatalog.membershipEnd.isCurrent(over: "m")))
            from community_groups g join ministries mi on mi.id = g.ministry_id join campuses c on c.id = mi.campus_id
            where \(unescaped: KindCatalog.groupInUse)
            order by g.code
            """).rows.map { row in
            let time = try row.decode(String?.self, 6)
            let start = time.flatMap { CellNormalizer.parseTime($0) }.map { $0.hour * 60 + $0.minute }
            return PlaceGroup(id: try row.decode(String.self, 0), code: try row.decode(String.self, 1),
                              name: try row.decode(String.self, 2), ministryID: try row.decode(String.self, 3),
                              ministryCode: try row.decode(String.self, 4),
                              day: try row.decode(String?.self, 5).flatMap(Weekday.init(name:)), start: start, time: time,
                              location: try row.decode(String?.self, 7), audience: try row.decode(String?.self, 8),
                              sex: try row.decode(String?.self, 9), capacity: try row.decode(Int?.self, 10),
                              members: try row.decode(Int.self, 11))
        }
    }

    /// The groups of `ministry` among `groups` that a student of this sex and school year may join now,
    /// by `place`'s rules but for the times (no availability is known): the group admits their sex,
    /// takes their school year and has room; fewest members first (`rank`).
    static func fitting(_ groups: [PlaceGroup], ministry: String, sex: String?, year: Int?) -> [PlaceGroup] {
        groups.filter { $0.ministryID == ministry && $0.admits(sex: sex ?? "unknown") && $0.takes(year: year) && $0.hasRoom }
            .sorted { $0.rank < $1.rank }
    }

    var reportGroup: PlaceReport.Group {
        PlaceReport.Group(code: code, name: name, ministry: ministryCode, day: day?.name, time: time,
                          location: location, leaders: leaders)
    }
}

/// The state of one run inside its transaction: campuses, ministries and groups loaded once, member
/// counts kept up to date as answers are placed.
struct Placement {
    let connection: PostgresConnection
    let file: String

    typealias Campus = AnswerReferences.Campus
    typealias Ministry = AnswerReferences.Ministry

    enum PersonChange { case inserted, updated, unchanged }

    /// The campuses and ministries answers may name.
    var references: AnswerReferences
    var groups: [PlaceGroup] = []
    var diagnostics: [Diagnostic] = []
    var people: [PersonChange: Int] = [:]
    var membershipsInserted = 0
    /// Memberships ended by moves.
    var membershipsEnded = 0
    /// Each group's position in `groups`.
    var groupIndex: [String: Int] = [:]
    /// Per ministry, the positions in `groups` of its groups, in order.
    var groupsOfMinistry: [String: [Int]] = [:]
    /// The current memberships of the run's students (`StudentMemberships`).
    var memberships = StudentMemberships()
    /// Joins decided but not written yet, in file order (`writeJoins`): group codes and emails.
    var pendingJoins: [(group: String, email: String)] = []

    init(connection: PostgresConnection, file: String) {
        self.connection = connection
        self.file = file
        references = AnswerReferences(file: file)
    }

    mutating func load() throws {
        // Every group is locked for the run, in id order as imports lock theirs: other writers adding
        // members wait until this run commits, so the counts read below hold and no join overfills.
        try connection.query("select id from community_groups order by id for no key update")
        references = try AnswerReferences.load(connection: connection, file: file)
        groups = try PlaceGroup.inUse(connection: connection)
        for (position, group) in groups.enumerated() {
            groupIndex[group.id] = position
            groupsOfMinistry[group.ministryID, default: []].append(position)
        }
        for row in try connection.query("""
            select gl.group_id, p.first_name || ' ' || p.last_name, p.email, p.phone
            from group_leaders gl join people p on p.id = gl.person_id
            order by gl.group_id, gl.position, p.email
            """).rows {
            if let position = groupIndex[try row.decode(String.self, 0)] {
                groups[position].leaders.append(PlaceReport.Leader(
                    name: try row.decode(String.self, 1), email: try row.decode(String.self, 2),
                    phone: try row.decode(String?.self, 3)))
            }
        }
    }

    /// The id of the newest notification (0 for none), from which `notificationsQueued` counts.
    func newestNotification() throws -> Int {
        try connection.query("select coalesce(max(id), 0) from notifications").scalar(Int.self)
    }

    /// How many notifications came after `id`, and how many of them are welcomes: the ones the run
    /// queued, read on the primary key, where counting the whole outbox before and after read every
    /// message ever sent, twice.
    func notificationsQueued(after id: Int) throws -> (all: Int, welcomes: Int) {
        let row = try connection.query("""
            select count(*), count(*) filter (where kind = 'welcome') from notifications where id > \(id)
            """).rows[0]
        return (try row.decode(Int.self, 0), try row.decode(Int.self, 1))
    }

    // MARK: Every answer

    /// Places the answers in file order. Each answer is decided in memory, as if the answers before
    /// it were written; the writes go in a handful of statements for the whole file (`saveStudents`,
    /// joins in batches), not several per answer. The availabilities are parsed
    /// while the server saves the students: who is saved does not depend on them.
    mutating func placeAll(_ written: [QuestionnaireAnswer]) throws -> [PlaceReport.Entry] {
        var answers = written
        var entries: [PlaceReport.Entry] = []
        var students: [Student] = []
        // Each answer's names are matched on their own, so the answers are split over the cores.
        let references = references
        let resolved = Concurrently.parts(of: written.count) { part in
            var references = references
            return written[part].map { answer in
                var problems = answer.diagnostics
                let (campus, chosen) = references.resolve(answer, problems: &problems)
                return (campus: campus, chosen: chosen, problems: problems)
            }
        }.flatMap { $0 }
        for (answer, (campus, chosen, problems)) in zip(written, resolved) {
            var entry = PlaceReport.Entry(line: answer.line, email: answer.email ?? answer.emailText, name: answer.name,
                                          outcome: .invalid)
            diagnostics += problems
            if let first = problems.first(where: { $0.severity == .error }) {
                entry.reason = first.code.rawValue
                entry.message = first.message
            } else if let campus, let email = answer.email, let sex = answer.sex {
                students.append(Student(entry: entries.count, answer: answer, email: email, sex: sex, campus: campus,
                                        chosen: chosen))
            } else {
                entry.reason = DiagnosticCode.missingValue.rawValue
            }
            entries.append(entry)
        }
        let file = file
        try saveStudents(&students) { QuestionnaireAnswer.readAvailabilities(of: &answers, file: file) }
        diagnostics += answers.compactMap(\.availabilityProblem)
        for index in entries.indices { entries[index].availability = answers[index].availability?.description }
        for index in students.indices { students[index].answer = answers[students[index].entry] }
        memberships = try StudentMemberships.load(of: students.map(\.personID), connection: connection)
        for student in students {
            entries[student.entry] = try place(student, entry: entries[student.entry])
        }
        try writeJoins()
        return entries
    }

    /// An answer whose student is saved, and maybe placed.
    struct Student {
        let entry: Int
        var answer: QuestionnaireAnswer
        let email: String
        let sex: String
        let campus: Campus
        let chosen: [Ministry]
        var personID = ""
    }

    private mutating func place(_ student: Student, entry: PlaceReport.Entry) throws -> PlaceReport.Entry {
        var entry = entry
        let answer = student.answer, chosen = student.chosen, sex = student.sex, personID = student.personID
        guard let availability = answer.availability else {
            entry.outcome = .unparseableAvailability
            entry.message = answer.availabilityProblem?.message
            return entry
        }
        let chosenIDs = Set(chosen.map(\.id))
        let current = memberships.first(of: personID, in: chosenIDs, inUse: groupIndex).map { groups[$0] }
        if let current, current.suits(sex: sex, year: answer.schoolYear, availability: availability) {
            entry.outcome = .alreadyPlaced
            entry.group = current.reportGroup
            entry.message = "already a member of \(current.code)"
            return entry
        }

        let ministryNames = chosen.map(\.code).joined(separator: "/")
        // The chosen ministries' groups, in the order of `groups`.
        let pool = chosenIDs.flatMap { groupsOfMinistry[$0] ?? [] }.sorted()
        let bySex = pool.filter { groups[$0].admits(sex: sex) }
        let byYear = bySex.filter { groups[$0].takes(year: answer.schoolYear) }
        let byTime = byYear.filter { groups[$0].meets(within: availability) }
        let withRoom = byTime.filter { groups[$0].hasRoom }
        func notPlaced(_ reason: PlaceReport.Reason, _ message: String) -> PlaceReport.Entry {
            if let current {
                entry.outcome = .alreadyPlaced
                entry.group = current.reportGroup
                entry.message = "stays in \(current.code), which no longer fits this answer, as no other group does: \(message)"
                return entry
            }
            entry.outcome = .noMatchingGroup
            entry.reason = reason.rawValue
            entry.message = message
            return entry
        }
        if pool.isEmpty {
            return notPlaced(.noGroups, "\(ministryNames) has no community groups")
        }
        if bySex.isEmpty {
            let offered = Set(pool.compactMap { groups[$0].sex }).sorted().joined(separator: ", ")
            return notPlaced(.sex, "no \(ministryNames) group is open to \(Self.sexNoun(sex)) (its groups are for \(offered))")
        }
        if byYear.isEmpty {
            let offered = Set(bySex.compactMap { groups[$0].audience }).sorted().joined(separator: ", ")
            return notPlaced(.year, "no \(ministryNames) group open to \(Self.sexNoun(sex)) takes \(Self.yearNoun(answer.schoolYear)) (they take \(offered))")
        }
        if byTime.isEmpty {
            let meetings = byYear.map { "\(groups[$0].code) \(groups[$0].reportGroup.meets)" }.joined(separator: ", ")
            return notPlaced(.time, "none of the fitting groups meets for \(Placer.meetingMinutes) minutes inside \"\(answer.availabilityText)\" (\(availability)); they meet: \(meetings)")
        }
        guard let best = withRoom.min(by: { groups[$0].rank < groups[$1].rank }) else {
            let full = byTime.map { "\(groups[$0].code) \(groups[$0].members)/\(groups[$0].capacity ?? 0)" }.joined(separator: ", ")
            return notPlaced(.full, "every fitting group is full: \(full)")
        }
        if try join(groups[best], student: student) {
            groups[best].members += 1
        }
        if let current {
            // The old memberships end once the joins before it are written, so seats freed here are
            // free for the answers after it.
            try writeJoins()
            for row in try connection.query(MembershipMove.endingOthers(person: personID, joining: groups[best].id)).rows {
                let groupID = try row.decode(String.self, 0)
                if let left = groupIndex[groupID] { groups[left].members -= 1 }
                memberships.end(personID, group: groupID)
                membershipsEnded += 1
            }
            entry.message = "moved from \(current.code)"
        }
        entry.outcome = .placed
        entry.group = groups[best].reportGroup
        return entry
    }

    static func sexNoun(_ sex: String) -> String {
        switch sex {
        case "male": "men"
        case "female": "women"
        default: "students whose sex is not given"
        }
    }

    static func yearNoun(_ year: Int?) -> String {
        guard let year else { return "students whose school year is not known" }
        return ["", "freshmen", "sophomores", "juniors", "seniors", "graduate students"][min(max(year, 0), 5)]
    }
}
