import CSVStream
@testable import CruBatch
import CruBatchTestSupport
import Foundation
import PostgresClient
import Testing

// MARK: - Availability parser

@Suite("place: availability parser")
struct AvailabilityParserTests {
    /// `Mon 17:00-22:00; Wed 17:00-22:00`, the form `Availability.description` gives.
    static let cases: [(String, String)] = [
        // Parts of the day.
        ("Mon morning", "Mon 06:00-12:00"),
        ("Thu mornings", "Thu 06:00-12:00"),
        ("Wednesday afternoon", "Wed 12:00-17:00"),
        ("Fri evening", "Fri 17:00-22:00"),
        ("Sunday evenings", "Sun 17:00-22:00"),
        ("Sun afternoon", "Sun 12:00-17:00"),
        ("Weekday evenings", "Mon 17:00-22:00; Tue 17:00-22:00; Wed 17:00-22:00; Thu 17:00-22:00; Fri 17:00-22:00"),
        ("Weeknights", "Mon 17:00-22:00; Tue 17:00-22:00; Wed 17:00-22:00; Thu 17:00-22:00; Fri 17:00-22:00"),
        ("Weekend afternoons", "Sat 12:00-17:00; Sun 12:00-17:00"),
        // Ranges.
        ("Tue 7-9pm", "Tue 19:00-21:00"),
        ("Thu 6:30pm-9pm", "Thu 18:30-21:00"),
        ("Sat 11:30am-2:30pm", "Sat 11:30-14:30"),
        ("Sat 11am-1pm", "Sat 11:00-13:00"),
        ("Thursdays 6:30-10pm", "Thu 18:30-22:00"),
        ("Sunday 7-10:30pm", "Sun 19:00-22:30"),
        ("Wed 11-1pm", "Wed 11:00-13:00"),
        ("Mon 18:00-20:30", "Mon 18:00-20:30"),
        ("Tue from 7 to 9pm", "Tue 19:00-21:00"),
        ("Tue between 7 and 9pm", "Tue 19:00-21:00"),
        ("Tue 7 pm - 9 pm", "Tue 19:00-21:00"),
        ("Wed noon-2pm", "Wed 12:00-14:00"),
        ("Fri 9pm-1am", "Fri 21:00-24:00; Sat 00:00-01:00"),
        // After / before.
        ("Thursday after 6", "Thu 18:00-24:00"),
        ("Mon after 6:30", "Mon 18:30-24:00"),
        ("Tue after 7pm", "Tue 19:00-24:00"),
        ("Wednesdays after 6:30pm", "Wed 18:30-24:00"),
        ("Sat before 10am", "Sat 00:00-10:00"),
        ("after 8pm", "Mon 20:00-24:00; Tue 20:00-24:00; Wed 20:00-24:00; Thu 20:00-24:00; Fri 20:00-24:00; Sat 20:00-24:00; Sun 20:00-24:00"),
        // Several days.
        ("Mon/Wed", "Mon 00:00-24:00; Wed 00:00-24:00"),
        ("Mon/Wed evenings", "Mon 17:00-22:00; Wed 17:00-22:00"),
        ("Monday and Wednesday evenings", "Mon 17:00-22:00; Wed 17:00-22:00"),
        ("Mon & Wed evenings", "Mon 17:00-22:00; Wed 17:00-22:00"),
        ("Tues/Thurs 7-9pm", "Tue 19:00-21:00; Thu 19:00-21:00"),
        ("Mon-Wed evenings", "Mon 17:00-22:00; Tue 17:00-22:00; Wed 17:00-22:00"),
        ("Monday, Wednesday and Friday evenings", "Mon 17:00-22:00; Wed 17:00-22:00; Fri 17:00-22:00"),
        // Anytime.
        ("anytime", "Mon 00:00-24:00; Tue 00:00-24:00; Wed 00:00-24:00; Thu 00:00-24:00; Fri 00:00-24:00; Sat 00:00-24:00; Sun 00:00-24:00"),
        ("Any time", "Mon 00:00-24:00; Tue 00:00-24:00; Wed 00:00-24:00; Thu 00:00-24:00; Fri 00:00-24:00; Sat 00:00-24:00; Sun 00:00-24:00"),
        // Lists, case, intersections, merging.
        ("Mon evening; Tue 7-9pm; Thursday after 6", "Mon 17:00-22:00; Tue 19:00-21:00; Thu 18:00-24:00"),
        ("Fri evening, Mon/Thu evenings", "Mon 17:00-22:00; Thu 17:00-22:00; Fri 17:00-22:00"),
        ("MON EVENING; tues 7-9PM", "Mon 17:00-22:00; Tue 19:00-21:00"),
        ("monday evening; sat 5-7:30pm; wednesdays after 7", "Mon 17:00-22:00; Wed 19:00-24:00; Sat 17:00-19:30"),
        ("Tue evening after 7", "Tue 19:00-22:00"),
        ("Mon 5-7pm; Mon 7-9pm", "Mon 17:00-21:00"),
        ("Mon evening; Monday after 7pm", "Mon 17:00-24:00"),
        // A single time: a meeting may start then.
        ("Monday at 7pm", "Mon 19:00-20:30"),
    ]

    /// The answers staff found refused, as the questionnaire holds them (fixtures/staff-sheets/README.md).
    static let staffAnswers: [(String, String)] = [
        ("Tuesday 7pm", "Tue 19:00-20:30"),
        ("MWF 3-5", "Mon 15:00-17:00; Wed 15:00-17:00; Fri 15:00-17:00"),
        ("M/W 7-9", "Mon 19:00-21:00; Wed 19:00-21:00"),
        ("TTh evenings", "Tue 17:00-22:00; Thu 17:00-22:00"),
        ("Tu 7-9pm", "Tue 19:00-21:00"),
        ("Monday or Wednesday night", "Mon 17:00-22:00; Wed 17:00-22:00"),
        ("any time but Friday", "Mon 00:00-24:00; Tue 00:00-24:00; Wed 00:00-24:00; Thu 00:00-24:00; Sat 00:00-24:00; Sun 00:00-24:00"),
        ("weekday evenings except Wed", "Mon 17:00-22:00; Tue 17:00-22:00; Thu 17:00-22:00; Fri 17:00-22:00"),
        ("Flexible", "Mon 00:00-24:00; Tue 00:00-24:00; Wed 00:00-24:00; Thu 00:00-24:00; Fri 00:00-24:00; Sat 00:00-24:00; Sun 00:00-24:00"),
    ]

    @Test("reads the answers staff found refused; a single time is a meeting's start", arguments: staffAnswers)
    func readsStaffAnswers(text: String, expected: String) throws {
        #expect(try Availability.parse(text).description == expected)
    }

    @Test("Tuesday after class stays refused, with the piece and the hint")
    func refusesAfterClass() {
        #expect(throws: AvailabilityError(text: "Tuesday after class", piece: "Tuesday after class",
                                          reason: "\"after\" needs a time after it, e.g. after 6pm")) {
            try Availability.parse("Tuesday after class")
        }
        #expect(AvailabilityError.hint.contains("Tuesday 7pm"))
    }

    @Test("reads the phrasings of fixtures/README.md", arguments: cases)
    func reads(text: String, expected: String) throws {
        let availability = try Availability.parse(text)
        #expect(availability.description == expected, "\(text)")
    }

    static let unreadable: [(String, String)] = [
        ("depends on my soccer schedule", "depends on my soccer schedule"),
        ("not sure yet, still figuring out my classes", "not sure yet"),
        ("TBD", "TBD"),
        ("idk lol", "idk lol"),
        ("ask my RA", "ask my RA"),
        ("Mon evening; depends on work", "depends on work"),
        ("Tue 7-", "Tue 7-"),
        ("Fri 13pm-2pm", "Fri 13pm-2pm"),
        ("Mon 5:75pm-7pm", "Mon 5:75pm-7pm"),
        ("after", "after"),
        ("Tue morning 7-9pm", "Tue morning 7-9pm"),
        ("   ", "   "),
    ]

    @Test("refuses text it cannot read, naming the piece", arguments: unreadable)
    func refuses(text: String, piece: String) {
        #expect(throws: AvailabilityError.self) { try Availability.parse(text) }
        do {
            _ = try Availability.parse(text)
        } catch {
            #expect(error.text == text)
            #expect(error.piece.lowercased() == piece.lowercased(), "\(error)")
            #expect(error.description.contains("\"\(text)\""))
        }
    }

    @Test("a meeting fits when all 90 minutes are inside a window (merged, across midnight)")
    func containment() throws {
        let availability = try Availability.parse("Mon 7-9pm; Tue 5-7pm; Tue 7-8pm; Sun after 11pm; Mon before 1am")
        #expect(availability.contains(day: .monday, start: 19 * 60, minutes: 90))
        #expect(availability.contains(day: .monday, start: 19 * 60 + 30, minutes: 90))
        #expect(!availability.contains(day: .monday, start: 20 * 60, minutes: 90))
        #expect(availability.containsStart(day: .monday, start: 20 * 60))
        #expect(availability.contains(day: .tuesday, start: 18 * 60, minutes: 90))  // 17-19 and 19-20 merge
        #expect(!availability.contains(day: .wednesday, start: 19 * 60, minutes: 90))
        #expect(availability.contains(day: .sunday, start: 23 * 60, minutes: 90))  // into Monday's 00:00-01:00
    }

    @Test("every availability in answers.csv is read, except the five deliberately unreadable ones")
    func fixtureAnswers() throws {
        let expected = try PlaceFixture.expected(TestEnvironment.fixture("get-involved/answers-expected.csv"))
        let unreadable = Set(expected.filter { $0.value.outcome == "unparseable-availability" }.keys)
        #expect(unreadable.count == 5)
        let answers = try PlaceFixture.answers(TestEnvironment.fixture("get-involved/answers.csv"))
        #expect(answers.count == 220)
        for answer in answers {
            let readable = (try? Availability.parse(answer.availability)) != nil
            #expect(readable != unreadable.contains(answer.line), "line \(answer.line): \(answer.availability)")
        }
    }
}

// MARK: - Questionnaire header

@Suite("place: questionnaire header")
struct QuestionnaireHeaderTests {
    @Test("recognises the Google Forms titles of fixtures/get-involved")
    func googleFormsTitles() throws {
        let header = ["Timestamp", "First name", "Last name", "Email address", "Phone number", "Sex",
                      "What year are you in school?", "Which campus do you attend?",
                      "Which ministries are you interested in?", "When are you free to meet each week?"]
        let mapping = try QuestionnaireHeader(header: header, overrides: [:], file: "f.csv")
        #expect(mapping.indexes[.timestamp] == 0)
        #expect(mapping.indexes[.email] == 3)
        #expect(mapping.indexes[.schoolYear] == 6)
        #expect(mapping.indexes[.campus] == 7)
        #expect(mapping.indexes[.ministries] == 8)
        #expect(mapping.indexes[.availability] == 9)
        #expect(mapping.warnings.isEmpty)
    }

    @Test("long titles by keyword, --map for the rest, missing questions named")
    func mapAndMissing() throws {
        let header = ["Full name", "E-mail", "Gender", "Which year of study are you in?", "Your college",
                      "Ministries you'd like to hear from", "Best times for you", "Favourite colour"]
        #expect(throws: Diagnostic.self) { try QuestionnaireHeader(header: header, overrides: [:], file: "f.csv") }
        do {
            _ = try QuestionnaireHeader(header: header, overrides: [:], file: "f.csv")
        } catch {
            #expect(error.code == .missingColumn)
            #expect(error.message.contains("\"availability\""))
        }
        let mapping = try QuestionnaireHeader(header: header, overrides: [.availability: "best times for you"], file: "f.csv")
        #expect(mapping.indexes[.name] == 0)
        #expect(mapping.indexes[.schoolYear] == 3)
        #expect(mapping.indexes[.campus] == 4)
        #expect(mapping.indexes[.ministries] == 5)
        #expect(mapping.indexes[.availability] == 6)
        #expect(mapping.warnings.map(\.column) == [8])
        #expect(mapping.warnings.first?.code == .unknownColumn)
        #expect(PlaceField(argument: "school-year") == .schoolYear)
        #expect(PlaceField(argument: "Availability") == .availability)
        #expect(PlaceField(argument: "colour") == nil)
    }

    @Test("a question's column may carry any name students.csv accepts for that column")
    func studentColumnNames() throws {
        for field in [PlaceField.firstName, .lastName, .email, .phone, .sex, .schoolYear, .campus, .ministries] {
            let column = try #require(KindCatalog.students.columns.first { $0.name == field.rawValue })
            for title in [column.name] + column.aliases {
                #expect(PlaceField(argument: title) == field, "\(title)")
            }
        }
        let header = ["Given name", "Family name", "E-mail address", "Mobile phone", "Gender", "Year in school",
                      "School", "Ministries", "Availability"]
        let mapping = try QuestionnaireHeader(header: header, overrides: [:], file: "f.csv")
        #expect(mapping.indexes == [.firstName: 0, .lastName: 1, .email: 2, .phone: 3, .sex: 4, .schoolYear: 5,
                                    .campus: 6, .ministries: 7, .availability: 8])
    }
}

// MARK: - Against the database

@Suite("place: against the database")
struct PlaceTests {
    private let scratch = ScratchDirectory()

    @Test("answers.csv on central-coast: outcomes as expected, every rule holds, the smallest group is chosen")
    func placesFixture() throws {
        let database = try TestDatabase(importing: "central-coast")
        let connection = try database.connect()
        let groups = try PlaceFixture.groups(connection)
        let path = TestEnvironment.fixture("get-involved/answers.csv")
        let result = try database.run(["place", path, "--format", "csv"])
        #expect(result.status == 1, "\(result.stderr)")

        // Outcomes match answers-expected.csv, line by line.
        let expected = try PlaceFixture.expected(TestEnvironment.fixture("get-involved/answers-expected.csv"))
        let rows = PlaceFixture.csvRows(result.stdout)
        #expect(rows.first == ["line", "email", "outcome", "reason", "group", "leaders", "message"])
        let outcomes = Dictionary(uniqueKeysWithValues: rows.dropFirst().map { (Int($0[0])!, $0) })
        #expect(outcomes.count == 220)
        for (line, want) in expected {
            let got = try #require(outcomes[line], "line \(line) missing")
            #expect(got[1] == want.email && got[2] == want.outcome && got[3] == want.reason, "line \(line): \(got) vs \(want)")
        }
        let tally = Dictionary(grouping: expected.values, by: { $0.outcome + "/" + $0.reason }).mapValues(\.count)
        #expect(tally == ["placed/": 209, "unparseable-availability/": 5, "no-matching-group/time": 2,
                          "no-matching-group/sex": 2, "no-matching-group/year": 2])

        // Unparseable availability: compiler-style type-error naming the text, with a hint.
        let typeErrors = result.stderr.split(separator: "\n").filter { $0.contains("error[type-error]") }
        #expect(typeErrors.count == 5)
        #expect(typeErrors.allSatisfy { $0.hasPrefix("\(path):") && $0.contains(":10: error[type-error]: availability \"") })
        #expect(result.stderr.contains("hint: write days and times such as"))

        // Every placement, read back from the database, obeys every rule.
        let answers = try PlaceFixture.answers(path)
        let ministries = try PlaceFixture.ministries(connection)
        let placements = try connection.query("""
            select lower(p.email), g.code, m.status, m.source, p.campus_id::text, p.sex, p.school_year
            from memberships m join people p on p.id = m.person_id join community_groups g on g.id = m.group_id
            where m.source = 'place'
            """).rows
        #expect(placements.count == 209)
        var placedIn: [String: String] = [:]
        for row in placements {
            #expect(row[2] == "active" && row[3] == "place")
            #expect(placedIn[row[0]!] == nil, "\(row[0]!) placed twice")
            placedIn[row[0]!] = row[1]!
        }
        for answer in answers {
            guard let code = placedIn[answer.email] else { continue }
            let group = try #require(groups[code])
            let chosen = answer.ministries.compactMap { ministries[$0.lowercased()] }
            #expect(group.campus == answer.campus, "line \(answer.line): campus")
            #expect(chosen.contains(group.ministry), "line \(answer.line): ministry \(group.ministry) not chosen")
            #expect(group.admits(sex: answer.sex), "line \(answer.line): sex")
            #expect(group.takes(year: answer.year), "line \(answer.line): year")
            let availability = try Availability.parse(answer.availability)
            #expect(availability.contains(day: group.day, start: group.start, minutes: 90), "line \(answer.line): time")
        }
        let overfull = try connection.query("""
            select g.code from community_groups g where g.capacity < (select count(*) from memberships m where m.group_id = g.id)
            """).rows
        #expect(overfull.isEmpty, "over capacity: \(overfull)")

        // The smallest fitting group, recomputed here in file order from the counts before the run.
        var members = try PlaceFixture.memberCounts(connection, excludingSource: "place")
        for answer in answers {
            guard let availability = try? Availability.parse(answer.availability) else { continue }
            let chosen = Set(answer.ministries.compactMap { ministries[$0.lowercased()] })
            let fitting = groups.values.filter { group in
                chosen.contains(group.ministry) && group.admits(sex: answer.sex) && group.takes(year: answer.year)
                    && availability.contains(day: group.day, start: group.start, minutes: 90)
                    && group.capacity.map { members[group.code, default: 0] < $0 } ?? true
            }
            let best = fitting.min { a, b in
                (members[a.code, default: 0], a.day.rawValue, a.start, a.code) < (members[b.code, default: 0], b.day.rawValue, b.start, b.code)
            }
            #expect(placedIn[answer.email] == best?.code, "line \(answer.line): placed in \(placedIn[answer.email] ?? "nothing"), smallest fitting is \(best?.code ?? "none")")
            if let best { members[best.code, default: 0] += 1 }
        }

        // The trigger queued one joined per leader of each placement, and a welcome per student.
        let queued = try database.count("""
            select count(*) from notifications n join memberships m on m.id = n.membership_id
            where m.source = 'place' and n.kind = 'joined'
            """)
        let leaders = try database.count("""
            select count(*) from memberships m join group_leaders gl on gl.group_id = m.group_id where m.source = 'place'
            """)
        #expect(queued == leaders && queued > 209)
        // Every answer's student is saved (unparseable ones too), with a normalised phone.
        #expect(try database.count("select count(*) from people where lower(email) = any(\(answers.map(\.email))::text[])") == 220)
        #expect(try database.count("select count(*) from people where phone !~ '^\\+1[2-9][0-9]{9}$'") == 0)
        // The placed group's leaders are the contact the student receives.
        let sample = try #require(rows.dropFirst().first { $0[2] == "placed" })
        let contact = try connection.query("""
            select string_agg(p.first_name || ' ' || p.last_name || ' <' || p.email || '> ' || p.phone, '; ' order by gl.position, p.email)
            from group_leaders gl join community_groups g on g.id = gl.group_id join people p on p.id = gl.person_id where g.code = \(sample[4])
            """).text
        #expect(sample[5] == contact)
        // Students' phones never appear in diagnostics (stdout holds leaders' phones, which the
        // fixture's 555-01xx numbers may share with students).
        for answer in answers where !answer.phone.isEmpty {
            let phone = try #require(try CellNormalizer.read(answer.phone, as: .phone).value)
            #expect(!result.stderr.contains(phone) && !result.stderr.contains(answer.phone))
        }
    }

    @Test("running place twice places nobody twice and queues no second notification")
    func rerun() throws {
        let database = try TestDatabase(importing: "central-coast")
        let path = TestEnvironment.fixture("get-involved/answers.csv")
        let imported = try database.count("select count(*) from notifications")
        let first = try database.run(["place", path, "--format", "json"])
        #expect(first.status == 1)
        let firstReport = try jsonObject(first.stdout)
        let firstCounts = firstReport["counts"] as? [String: Any]
        #expect(firstCounts?["placed"] as? Int == 209)
        #expect(firstCounts?["memberships_inserted"] as? Int == 209)
        let notifications = try database.count("select count(*) from notifications")
        #expect(firstCounts?["notifications_queued"] as? Int == notifications - imported)
        let memberships = try database.count("select count(*) from memberships")
        let before = try database.tableCounts()

        let second = try database.run(["place", path, "--format", "json"])
        #expect(second.status == 1)
        let counts = try jsonObject(second.stdout)["counts"] as? [String: Any]
        #expect(counts?["placed"] as? Int == 0)
        #expect(counts?["already_placed"] as? Int == 209)
        #expect(counts?["memberships_inserted"] as? Int == 0)
        #expect(counts?["notifications_queued"] as? Int == 0)
        #expect(counts?["people_unchanged"] as? Int == 220)
        #expect(try database.count("select count(*) from notifications") == notifications)
        #expect(try database.count("select count(*) from memberships") == memberships)
        #expect(try database.tableCounts() == before)
        // The re-run still tells each student their group and its leaders.
        let entries = try jsonObject(second.stdout)["answers"] as? [[String: Any]] ?? []
        let firstEntries = firstReport["answers"] as? [[String: Any]] ?? []
        for (old, new) in zip(firstEntries, entries) where old["outcome"] as? String == "placed" {
            #expect(new["outcome"] as? String == "already-placed")
            #expect((new["group"] as? [String: Any])?["code"] as? String == (old["group"] as? [String: Any])?["code"] as? String)
        }

        // answers-small.csv after answers.csv: as its expected file says.
        let small = try database.run(["place", TestEnvironment.fixture("get-involved/answers-small.csv"), "--format", "csv"])
        let expected = try PlaceFixture.expected(TestEnvironment.fixture("get-involved/answers-small-expected.csv"))
        for row in PlaceFixture.csvRows(small.stdout).dropFirst() {
            let want = try #require(expected[Int(row[0])!])
            #expect(row[1] == want.email && row[2] == want.outcome && row[3] == want.reason, "\(row)")
        }
    }

    @Test("--dry-run writes nothing but reports what it would do")
    func dryRun() throws {
        let database = try TestDatabase(importing: "central-coast")
        let before = try database.tableCounts()
        let result = try database.run(["place", TestEnvironment.fixture("get-involved/answers.csv"), "--dry-run"])
        #expect(result.status == 1)
        #expect(result.stdout.contains("209 would be placed"))
        #expect(result.stdout.contains("dry run"))
        #expect(result.stdout.contains("nothing was written"))
        #expect(try database.tableCounts() == before)
        #expect(try database.count("select count(*) from memberships where source = 'place'") == 0)
    }

    @Test("capacity counts this run's placements; a repeated student is not placed twice; tie-break by members")
    func capacityAndRepeats() throws {
        let database = try TestDatabase(importing: "central-coast")
        // Only cp-small-tue (Tue 19:00, mixed, capacity 3, empty) fits juniors free Tue 7-9pm.
        let path = try scratch.writeFile("answers.csv", """
            Timestamp,First name,Last name,Email address,Phone number,Sex,What year are you in school?,Which campus do you attend?,Which ministries are you interested in?,When are you free to meet each week?
            9/1/2026 10:00:00,Ana,Uno,ana.uno@example.edu,,Female,Junior,Cal Poly San Luis Obispo,Cru Cal Poly,Tue 7-9pm
            9/1/2026 10:01:00,Bea,Dos,bea.dos@example.edu,,Female,3,calpoly,cru-calpoly,tuesday 7-9pm
            9/1/2026 10:02:00,Ana,Uno,Ana.Uno@Example.edu,,Female,Junior,Cal Poly San Luis Obispo,Cru Cal Poly,Tue evening
            9/1/2026 10:03:00,Cai,Tres,cai.tres@example.edu,,Male,Junior,Cal Poly San Luis Obispo,Cru Cal Poly,Tue 7-9pm
            9/1/2026 10:04:00,Dan,Cuatro,dan.cuatro@example.edu,,Male,Junior,Cal Poly San Luis Obispo,Cru Cal Poly,Tue 7-9pm

            """)
        let notifications = try database.count("select count(*) from notifications")
        let result = try database.run(["place", path, "--format", "csv"])
        #expect(result.status == 1, "\(result.stderr)")
        let rows = PlaceFixture.csvRows(result.stdout).dropFirst().map { Array($0[0...4]) }
        #expect(rows == [
            ["2", "ana.uno@example.edu", "placed", "", "cp-small-tue"],
            ["3", "bea.dos@example.edu", "placed", "", "cp-small-tue"],
            ["4", "ana.uno@example.edu", "already-placed", "", "cp-small-tue"],
            ["5", "cai.tres@example.edu", "placed", "", "cp-small-tue"],
            ["6", "dan.cuatro@example.edu", "no-matching-group", "full", ""],
        ])
        #expect(try database.count("select count(*) from memberships m join community_groups g on g.id = m.group_id where g.code = 'cp-small-tue'") == 3)
        #expect(try database.count("select count(*) from people where lower(email) = 'ana.uno@example.edu'") == 1)
        #expect(try database.count("select count(*) from notifications") == notifications + 9)  // 3 joins x (2 leaders + 1 welcome)

        // Equally small groups: the earliest meeting in the week wins (Monday first), then the next smallest.
        // A Cuesta freshman woman free anytime fits cu-fr-mixed-mon (Mon 19:00), cu-fr-women-tue (Tue 18:30)
        // and cu-mixed-wed (Wed 19:30); emptied here, they tie at 0 members.
        try database.connect().execute("""
            delete from memberships where group_id in (select id from community_groups where code like 'cu-%')
            """)
        let tie = try scratch.writeFile("tie.csv", """
            First name,Last name,Email,Sex,Year,Campus,Ministries,Availability
            Eva,Cinco,eva.cinco@example.edu,Female,Freshman,cuesta,cru-cuesta,anytime
            Fay,Seis,fay.seis@example.edu,Female,Freshman,cuesta,cru-cuesta,anytime
            Gia,Siete,gia.siete@example.edu,Female,Freshman,cuesta,cru-cuesta,anytime
            Hana,Ocho,hana.ocho@example.edu,Female,Freshman,cuesta,cru-cuesta,Mon/Tue evenings

            """)
        let tied = try database.run(["place", tie, "--format", "csv"])
        #expect(tied.status == 0, "\(tied.stderr)")
        let placed = PlaceFixture.csvRows(tied.stdout).dropFirst().map { $0[4] }
        #expect(placed == ["cu-fr-mixed-mon", "cu-fr-women-tue", "cu-mixed-wed", "cu-fr-mixed-mon"])
    }

    @Test("header aliases, --map, and answers with bad cells: compiler-style diagnostics, no phones")
    func mappingAndDiagnostics() throws {
        let database = try TestDatabase(importing: "central-coast")
        let path = try scratch.writeFile("answers.csv", """
            Submitted,Full name,E-mail,Mobile,Gender,Class,School,Ministry,Best times for you
            9/1/2026,Gil Siete,gil.siete@example.edu,(805) 756-2222,M,Freshman,Cal Poly San Luis Obispo,Cru Cal Poly,Mon evening
            9/1/2026,Hal Ocho,hal.ocho@example,(805) 555-0143,M,Freshman,Cal Poly San Luis Obispo,Cru Cal Poly,Mon evening
            9/1/2026,Ivy Nueve,ivy.nueve@example.edu,555-1234,F,Freshman,Cal Poly San Luis Obispo,Cru Cal Poly,Mon evening
            9/1/2026,Joy Diez,joy.diez@example.edu,,F,Freshman,Cal Poly Pomona,Cru Cal Poly,Mon evening
            9/1/2026,Kim Once,kim.once@example.edu,,F,Freshman,Cal Poly San Luis Obispo,Epik Movement Cal Poly,Mon evening
            9/1/2026,Lu Doce,lu.doce@example.edu,,F,Freshman,calpoly,Cru Cuesta,Mon evening
            9/1/2026,Mo Trece,mo.trece@example.edu,,Prefer not to say,Freshman,calpoly,cru-calpoly,Mon evening
            9/1/2026,Ned,ned@example.edu,,M,Freshman,calpoly,cru-calpoly,Mon evening
            9/1/2026,Oz Quince,oz.quince@example.edu,,M,Freshman,calpoly,cru-calpoly,TBD

            """)
        let unmapped = try database.run(["place", path])
        #expect(unmapped.status == 65)
        #expect(unmapped.stderr.contains("\(path):1: error[missing-column]: no column answers \"availability\""))

        let before = try database.tableCounts()
        let badMap = try database.run(["place", path, "--map", "availability=When are you free?"])
        #expect(badMap.status == 65)
        #expect(try database.tableCounts() == before)

        let result = try database.run(["place", path, "--map", "availability=Best times for you"])
        #expect(result.status == 1)
        let errors = result.stderr.split(separator: "\n").filter { !$0.hasPrefix("  hint:") }.map(String.init)
        #expect(errors.contains("\(path):3:3: error[invalid-email]: email: not a valid email address"))
        #expect(errors.contains("\(path):4:4: error[invalid-phone]: phone: not a valid phone number"))
        #expect(errors.contains { $0.hasPrefix("\(path):5:7: error[unknown-reference]: campus \"Cal Poly Pomona\" does not exist") })
        #expect(errors.contains("\(path):6:8: error[unknown-reference]: ministry \"Epik Movement Cal Poly\" does not exist at Cal Poly San Luis Obispo (did you mean \"Epic Movement Cal Poly\"?)"))
        #expect(errors.contains("\(path):7:8: error[unknown-reference]: ministry \"Cru Cuesta\" is at Cuesta College, not Cal Poly San Luis Obispo"))
        // "Prefer not to say" is sex unknown: only mixed groups (here cp-small-tue, on Tuesday) may take the student.
        #expect(!errors.contains { $0.hasPrefix("\(path):8:") })
        #expect(result.stdout.contains("no-matching-group (time)  Mo Trece") && result.stdout.contains("they meet: cp-small-tue Tue 19:00\n"))
        #expect(errors.contains("\(path):9:2: error[missing-value]: name \"Ned\" has no last name"))
        #expect(errors.contains { $0.hasPrefix("\(path):10:9: error[type-error]: availability \"TBD\"") })
        #expect(!result.stderr.contains("555-1234") && !result.stdout.contains("555-1234"))
        #expect(!result.stderr.contains("7562222") && !result.stdout.contains("7562222"))
        #expect(result.stdout.contains("gil.siete@example.edu"))
        #expect(result.stdout.contains("1 placed, 1 with no matching group (1 time), 1 unparseable availability, 6 invalid"))
        // Valid people are saved (the unparseable one too), invalid rows write nothing.
        let saved = try database.connect().query("""
            select email, first_name, last_name, phone, sex, school_year from people
            where email in ('gil.siete@example.edu', 'oz.quince@example.edu', 'ivy.nueve@example.edu', 'joy.diez@example.edu')
            order by email
            """).texts
        #expect(saved == [["gil.siete@example.edu", "Gil", "Siete", "+18057562222", "male", "1"],
                          ["oz.quince@example.edu", "Oz", "Quince", nil, "male", "1"]])
        #expect(try database.count("""
            select count(*) from person_ministries pm join people p on p.id = pm.person_id join ministries m on m.id = pm.ministry_id
            where p.email = 'oz.quince@example.edu' and m.code = 'cru-calpoly'
            """) == 1)
    }

    @Test("exit codes: 66 no such file, 65 malformed CSV, 69 database down")
    func exitCodes() throws {
        let database = try TestDatabase()
        let missing = try database.run(["place", "/nonexistent/answers.csv"])
        #expect(missing.status == 66)
        let malformed = try scratch.writeFile("answers.csv", "Email,First name,Last name,Sex,Year,Campus,Ministries,Availability\na@b.edu,\"Ann,B,F,1,calpoly,cru-calpoly,anytime\n")
        let bad = try database.run(["place", malformed])
        #expect(bad.status == 65)
        #expect(bad.stderr.contains("error[malformed-csv]"))
        let down = try CommandResult.run(["place", TestEnvironment.fixture("get-involved/answers-small.csv"),
                                          "--database-url", "postgresql://postgres@127.0.0.1:1/nothing"])
        #expect(down.status == 69)
        let usage = try database.run(["place", malformed, "--map", "colour=Favourite colour"])
        #expect(usage.status == 64)
    }

    @Test("--format json is one document with every answer")
    func jsonReport() throws {
        let database = try TestDatabase(importing: "central-coast")
        let result = try database.run(["place", TestEnvironment.fixture("get-involved/answers-small.csv"), "--format", "json"])
        #expect(result.status == 1)
        let report = try jsonObject(result.stdout)
        let answers = report["answers"] as? [[String: Any]] ?? []
        #expect(answers.count == 10)
        let placed = try #require(answers.first { $0["outcome"] as? String == "placed" })
        let group = try #require(placed["group"] as? [String: Any])
        let leaders = try #require(group["leaders"] as? [[String: Any]])
        #expect(!leaders.isEmpty && leaders.allSatisfy { ($0["phone"] as? String)?.hasPrefix("+1") == true })
        #expect((report["diagnostics"] as? [[String: Any]])?.first?["code"] as? String == "type-error")
        #expect(report["dry_run"] as? Bool == false)
    }
}

// MARK: - Helpers

/// Reads the fixtures and the database independently of the code under test.
enum PlaceFixture {
    struct Expected {
        let email: String
        let outcome: String
        let reason: String
    }

    struct Answer {
        let line: Int
        let email: String
        let phone: String
        let sex: String
        let year: Int
        let campusText: String
        let ministries: [String]
        let availability: String

        /// The campus code, from a name or a code.
        var campus: String { Self.campusCodes[campusText.lowercased()] ?? campusText.lowercased() }

        static let campusCodes = ["cal poly san luis obispo": "calpoly", "cuesta college": "cuesta",
                                  "allan hancock college": "hancock"]
    }

    struct Group {
        let code: String
        let ministry: String
        let campus: String
        let day: Weekday
        let start: Int
        let audience: String
        let sex: String
        let capacity: Int?

        func admits(sex student: String) -> Bool {
            sex == "mixed" || (sex == "men" && student == "male") || (sex == "women" && student == "female")
        }

        func takes(year: Int) -> Bool {
            switch audience {
            case "mixed": true
            case "faculty": false
            default: ["freshmen": 1, "sophomores": 2, "juniors": 3, "seniors": 4, "graduates": 5][audience] == year
            }
        }
    }

    static func records(_ path: String) throws -> [CSVRecord] {
        let reader = try CSVReader(path: path)
        var records: [CSVRecord] = []
        while let event = try reader.next() {
            if case .record(let record) = event { records.append(record) }
        }
        return records
    }

    static func expected(_ path: String) throws -> [Int: Expected] {
        var result: [Int: Expected] = [:]
        for record in try records(path).dropFirst() {
            result[Int(record.fields[0])!] = Expected(email: record.fields[1], outcome: record.fields[2], reason: record.fields[3])
        }
        return result
    }

    static func answers(_ path: String) throws -> [Answer] {
        let years = ["freshman": 1, "sophomore": 2, "junior": 3, "senior": 4, "graduate": 5]
        return try records(path).dropFirst().map { record in
            let f = record.fields
            let ministries = f[8].split(whereSeparator: { $0 == "," || $0 == ";" })
                .map { $0.trimmingCharacters(in: .whitespaces) }
            return Answer(line: record.line, email: f[3].lowercased(), phone: f[4], sex: f[5].lowercased(),
                          year: years[f[6].lowercased()] ?? Int(f[6])!, campusText: f[7], ministries: ministries,
                          availability: f[9])
        }
    }

    /// Ministry name or code (lower case) -> code.
    static func ministries(_ connection: PostgresConnection) throws -> [String: String] {
        var map: [String: String] = [:]
        for row in try connection.query("select code, name from ministries").rows {
            map[row[0]!] = row[0]!
            map[row[1]!.lowercased()] = row[0]!
        }
        return map
    }

    static func groups(_ connection: PostgresConnection) throws -> [String: Group] {
        var groups: [String: Group] = [:]
        for row in try connection.query("""
            select g.code, m.code, c.code, g.meeting_day, extract(hour from g.meeting_time) * 60 + extract(minute from g.meeting_time),
                   g.audience, g.sex, g.capacity
            from community_groups g join ministries m on m.id = g.ministry_id join campuses c on c.id = m.campus_id
            """).rows {
            let day = Weekday.allCases.first { $0.name == row[3]! }!
            groups[row[0]!] = Group(code: row[0]!, ministry: row[1]!, campus: row[2]!, day: day,
                                    start: Int(Double(row[4]!)!), audience: row[5]!, sex: row[6]!,
                                    capacity: row[7].flatMap { Int($0) })
        }
        return groups
    }

    static func memberCounts(_ connection: PostgresConnection, excludingSource source: String?) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for row in try connection.query("""
            select g.code, count(m.id) from community_groups g
            left join memberships m on m.group_id = g.id and m.source is distinct from \(source)
            group by g.code
            """).rows {
            counts[row[0]!] = Int(row[1]!)!
        }
        return counts
    }

    /// Rows of a CSV the command printed (RFC 4180, CRLF).
    static func csvRows(_ text: String) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = [], cell = "", quoted = false
        var iterator = Array(text.unicodeScalars).makeIterator()
        var pending: Unicode.Scalar? = nil
        while let scalar = pending ?? iterator.next() {
            pending = nil
            if quoted {
                if scalar == "\"" {
                    if let next = iterator.next() {
                        if next == "\"" { cell.unicodeScalars.append("\"") } else { quoted = false; pending = next }
                    } else { quoted = false }
                } else {
                    cell.unicodeScalars.append(scalar)
                }
            } else if scalar == "\"" {
                quoted = true
            } else if scalar == "," {
                row.append(cell)
                cell = ""
            } else if scalar == "\r" {
                continue
            } else if scalar == "\n" {
                row.append(cell)
                rows.append(row)
                row = []
                cell = ""
            } else {
                cell.unicodeScalars.append(scalar)
            }
        }
        if !row.isEmpty || !cell.isEmpty { row.append(cell); rows.append(row) }
        return rows
    }

}
