import CruBatchTestSupport
import Foundation
import PostgresClient
import Testing

/// fixtures/staff-sheets: the sheets staff really send (see its README), loaded onto central-coast.
@Suite("staff sheets")
struct StaffSheetTests {
    private static let fall = TestEnvironment.fixture("staff-sheets/fall-2026")
    private static let loadFall = ["import", "--dir", fall, "--file", "students=Cru Students - Sheet1.csv",
                                   "--map", "Group Name=name,Leader Email=leaders"]

    private let scratch = ScratchDirectory()

    @Test("--dir names every file it skips and why; Group Name and Leader Email get a hint with the --map that reads them")
    func folderAsDownloaded() throws {
        let database = try TestDatabase(importing: "central-coast")
        let before = try database.tableCounts()
        let result = try database.run(["import", "--dir", Self.fall])
        #expect(result.status == 65)
        #expect(result.stderr.contains("\(Self.fall)/Cru Students - Sheet1.csv:1: warning[skipped-file]: not loaded: its name is none of campuses.csv"))
        #expect(result.stderr.contains("hint: if it holds students, load it with --file students='Cru Students - Sheet1.csv'"))
        #expect(result.stderr.contains("\(Self.fall)/notes.txt:1: warning[skipped-file]: not loaded: it is neither a .csv file nor an .xlsx workbook"))
        #expect(result.stderr.contains("\(Self.fall)/groups.csv:1: error[missing-column]: required columns \"name\", \"leaders\" missing; "
            + "the file has columns A \"Code\", B \"Ministry\", C \"Group Name\", D \"Day\", E \"Time\", F \"Location\", "
            + "G \"Audience\", H \"Sex\", I \"Capacity\", J \"Leader Email\"\n"
            + "  hint: closest: name: C \"Group Name\"; leaders: J \"Leader Email\". Rename them, "
            + "or load it with --map 'Group Name=name,Leader Email=leaders'"))
        #expect(try database.tableCounts() == before)
    }

    @Test("the fall-2026 sheets load as a person reads them")
    func folderLoads() throws {
        let database = try TestDatabase(importing: "central-coast")
        let result = try database.run(Self.loadFall)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("0 errors, 6 warnings: loaded"))
        let warnings = result.stderr.split(separator: "\n").filter { $0.contains("warning[") }.map { String($0.prefix { $0 != "]" }) }
        #expect(warnings == [
            "\(Self.fall)/notes.txt:1: warning[skipped-file", "\(Self.fall)/campuses.csv:3:5: warning[assumed-value",
            "\(Self.fall)/campuses.csv:4:5: warning[assumed-value", "\(Self.fall)/campuses.csv:5:5: warning[assumed-value",
            "\(Self.fall)/Cru Students - Sheet1.csv:8:6: warning[assumed-value", "\(Self.fall)/events.csv:5:5: warning[assumed-value",
        ])
        let connection = try database.connect()
        func rows(_ query: PostgresQuery) throws -> [[String?]] { try connection.query(query).texts }

        // Time zones: a US name, abbreviations read as US zones, and the default for none.
        #expect(try rows("select code, timezone from campuses where code in ('ucsb', 'westmont', 'gsu', 'csumb') order by code") == [
            ["csumb", "America/Los_Angeles"], ["gsu", "America/New_York"], ["ucsb", "America/Los_Angeles"],
            ["westmont", "America/Los_Angeles"],
        ])
        // Campuses by name.
        #expect(try rows("""
            select m.code, c.code from ministries m join campuses c on c.id = m.campus_id
            where m.code in ('cru-ucsb', 'cru-westmont', 'cru-gsu', 'cru-csumb') order by m.code
            """) == [["cru-csumb", "csumb"], ["cru-gsu", "gsu"], ["cru-ucsb", "ucsb"], ["cru-westmont", "westmont"]])
        // Leaders: labelled phones, Girls/Guys, Staff Member, Student Leader, campuses by name.
        #expect(try rows("""
            select p.email, p.phone, p.sex, p.staff_role, p.is_staff::text, c.code from people p join campuses c on c.id = p.campus_id
            where p.email in ('dana.whitfield@cru.org', 'marcus.bell@cru.org', 'priya.raman@ucsb.edu', 'jordan.ames@cru.org')
            order by p.email
            """) == [
            ["dana.whitfield@cru.org", "+18055550131", "female", "staff", "true", "calpoly"],
            ["jordan.ames@cru.org", "+14045550134", "male", "intern", "true", "gsu"],
            ["marcus.bell@cru.org", "+18055550132;ext=4", "male", "staff", "true", "calpoly"],
            ["priya.raman@ucsb.edu", "+18055550133", "female", "student", "false", "ucsb"],
        ])
        // Students: years and sexes as words, Class of 2028, Transfer, ministries by name (Cru narrowed
        // to the student's campus), lists split on commas and on a line break.
        #expect(try rows("""
            select p.email, p.phone, p.sex, p.school_year::text, p.grad_year::text, c.code,
                   (select string_agg(m.code, ';' order by pm.position) from person_ministries pm
                    join ministries m on m.id = pm.ministry_id where pm.person_id = p.id)
            from people p join campuses c on c.id = p.campus_id
            where p.email in ('ava.lindqvist@calpoly.edu', 'ben.okoro@calpoly.edu', 'chloe.park@calpoly.edu',
                              'diego.marin@my.cuesta.edu', 'emma.stone@ucsb.edu', 'felix.wu@calpoly.edu',
                              'grace.holt@gsu.edu', 'hana.mori@calpoly.edu')
            order by p.email
            """) == [
            ["ava.lindqvist@calpoly.edu", "+18055550140", "female", "1", nil, "calpoly", "cru-calpoly;destino-calpoly"],
            ["ben.okoro@calpoly.edu", nil, "male", "2", nil, "calpoly", "cru-calpoly"],
            ["chloe.park@calpoly.edu", nil, "female", "1", nil, "calpoly", "cru-calpoly;epic-calpoly"],
            ["diego.marin@my.cuesta.edu", nil, "male", "5", nil, "cuesta", "destino-cuesta"],
            ["emma.stone@ucsb.edu", nil, "female", nil, "2028", "ucsb", "cru-ucsb"],
            ["felix.wu@calpoly.edu", nil, "unknown", "5", nil, "calpoly", "cru-calpoly;epic-calpoly"],
            ["grace.holt@gsu.edu", nil, "female", nil, nil, "gsu", "cru-gsu"],
            ["hana.mori@calpoly.edu", nil, "female", "3", nil, "calpoly", "cru-calpoly;greek-calpoly"],
        ])
        // Groups and teams: ministries by name, Tu/Wed/Th, noon and 7:00 PM, Everyone, Girls/Co-ed, leaders split on commas.
        #expect(try rows("""
            select g.code, g.name, m.code, g.meeting_day, to_char(g.meeting_time, 'HH24:MI'), g.audience, g.sex,
                   (select string_agg(p.email, ';' order by gl.position) from group_leaders gl join people p on p.id = gl.person_id
                    where gl.group_id = g.id)
            from community_groups g join ministries m on m.id = g.ministry_id
            where g.code in ('ucsb-women-tue', 'cp-staff-lunch', 'gsu-mixed-thu') order by g.code
            """) == [
            ["cp-staff-lunch", "Staff Lunch Group", "cru-calpoly", "Wednesday", "12:00", "mixed", "mixed",
             "dana.whitfield@cru.org;marcus.bell@cru.org"],
            ["gsu-mixed-thu", "GSU Thursday Group", "cru-gsu", "Thursday", "19:00", "mixed", "mixed", "jordan.ames@cru.org"],
            ["ucsb-women-tue", "UCSB Women", "cru-ucsb", "Tuesday", "12:00", "mixed", "women", "priya.raman@ucsb.edu"],
        ])
        #expect(try rows("""
            select t.code, m.code, (select string_agg(p.email, ';' order by tl.position) from team_leaders tl
                                    join people p on p.id = tl.person_id where tl.team_id = t.id)
            from ministry_teams t join ministries m on m.id = t.ministry_id where t.code in ('ucsb-outreach', 'cp-staff-team')
            order by t.code
            """) == [["cp-staff-team", "cru-calpoly", "dana.whitfield@cru.org;marcus.bell@cru.org"],
                     ["ucsb-outreach", "cru-ucsb", "priya.raman@ucsb.edu"]])
        // Memberships: groups by name, waitlist and Member, a date alone is midnight on the group's campus.
        #expect(try rows("""
            select g.code, p.email, ms.status, to_char(ms.joined_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI')
            from memberships ms join community_groups g on g.id = ms.group_id join people p on p.id = ms.person_id
            where g.code in ('ucsb-women-tue', 'cp-staff-lunch') order by p.email
            """) == [
            ["cp-staff-lunch", "ava.lindqvist@calpoly.edu", "pending", "2026-09-15T07:00"],
            ["ucsb-women-tue", "emma.stone@ucsb.edu", "active", "2026-09-15T07:00"],
            ["cp-staff-lunch", "felix.wu@calpoly.edu", "active", "2026-09-16T19:30"],
        ])
        // Events: 7:00 PM in Pacific Time; no zone takes the campus's (New York), or the default when the
        // ministries' campuses disagree.
        #expect(try rows("""
            select e.code, e.timezone, to_char(e.starts_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI'),
                   to_char(e.ends_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI'),
                   (select string_agg(m.code, ';' order by em.position) from event_ministries em
                    join ministries m on m.id = em.ministry_id where em.event_id = e.id)
            from events e where e.code in ('welcome-bbq', 'gsu-kickoff', 'csumb-night', 'regional-retreat') order by e.code
            """) == [
            ["csumb-night", "America/Los_Angeles", "2026-10-02T02:00", nil, "cru-csumb"],
            ["gsu-kickoff", "America/New_York", "2026-09-25T23:00", nil, "cru-gsu"],
            ["regional-retreat", "America/Los_Angeles", "2026-10-10T01:00", "2026-10-11T19:00", "cru-calpoly;cru-gsu"],
            ["welcome-bbq", "America/Los_Angeles", "2026-09-16T02:00", "2026-09-16T04:00", "cru-calpoly;destino-calpoly"],
        ])
        #expect(try rows("select starts_on::text, ends_on::text, cost::text from summer_missions where code = 'big-sur-2027'")
            == [["2027-06-13", "2027-07-24", "3450.00"]])
        // Topics hold commas: only ; separates them.
        #expect(try rows("""
            select r.type, string_agg(t.topic, '|' order by t.position) from resources r join resource_topics t on t.resource_id = r.id
            where r.title = 'Prayer and Fasting' group by r.type
            """) == [["audio", "Prayer, fasting|Bible study"]])

        // Exported and imported again, nothing changes.
        let again = try database.run(Self.loadFall + ["--format", "json"])
        let files = (try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any])?["files"] as? [[String: Any]]
        #expect(files?.allSatisfy { $0["inserted"] as? Int == 0 && $0["updated"] as? Int == 0 } == true, "\(again.stdout)")
    }

    @Test("a misspelt header: the hint names the column; --map reads it")
    func misspeltHeader() throws {
        let database = try TestDatabase()
        let path = TestEnvironment.fixture("staff-sheets/typo/students.csv")
        let refused = try database.run(["import", "students", path])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("\(path):1: error[missing-column]: required column \"email\" missing; "
            + "the file has columns A \"Emial\", B \"First Name\", C \"Last Name\"\n"
            + "  hint: closest: email: A \"Emial\". Rename it, or load it with --map 'Emial=email'"))
        let mapped = try database.run(["import", "students", path, "--map", "Emial=email"])
        #expect(mapped.status == 0, "\(mapped.stderr)")
        #expect(try database.count("select count(*) from people where email = 'zoe.quinn@calpoly.edu'") == 1)
        let unknown = try database.run(["import", "students", path, "--map", "Emial=email", "--map", "E-mail 2=phone"])
        #expect(unknown.status == 65)
        #expect(unknown.stderr.contains("error[missing-column]: --map 'E-mail 2=phone': no file has a column \"E-mail 2\""))
        let notAColumn = try database.run(["import", "students", path, "--map", "Emial=mail address"])
        #expect(notAColumn.status == 64)
    }

    @Test("Pacific Time loads; Pacfic Time is an error at its cell, and --dir reports the other files' errors too")
    func misspeltTimeZone() throws {
        let database = try TestDatabase(importing: "central-coast")
        let folder = TestEnvironment.fixture("staff-sheets/pacfic")
        let result = try database.run(["import", "--dir", folder])
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.contains("\(folder)/events.csv:3:4: error[invalid-choice]: timezone: \"Pacfic Time\" is not a time zone of the tz database nor a US zone name"))
        #expect(lines.contains("  hint: did you mean \"Pacific Time\"?"))
        #expect(lines.contains("\(folder)/missions.csv:2:3: error[type-error]: starts_on: \"13/6/2028\" is not a month/day/year date"))
        #expect(lines.contains("  hint: it looks like day/month/year: run with --date-order dmy, or write 2028-06-13"))
        #expect(!lines.contains { $0.hasPrefix("\(folder)/events.csv:2:") })

        let good = try scratch.writeFile("events.csv", """
            code,name,starts_at,timezone,ministries
            fall-kickoff,Fall Kickoff,9/15/2026 7:00 PM,Pacific Time,cru-calpoly

            """)
        let loaded = try database.run(["import", "events", good])
        #expect(loaded.status == 0, "\(loaded.stderr)")
        #expect(try database.connect().query("""
            select timezone || ' ' || to_char(starts_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI') from events where code = 'fall-kickoff'
            """).text == "America/Los_Angeles 2026-09-16T02:00")
    }

    @Test("--date-order dmy reads day first and refuses dates that could be either")
    func dayFirst() throws {
        let database = try TestDatabase()
        let path = try scratch.writeFile("missions.csv", """
            code,name,starts_on,ends_on,location
            tahoe-2028,Lake Tahoe Summer Mission,13/6/2028,22/7/2028,"South Lake Tahoe, CA"
            ocean-2028,Ocean City Beach Project,4/6/2028,15/7/2028,"Ocean City, MD"

            """)
        let result = try database.run(["import", "missions", path, "--date-order", "dmy", "--on-error", "skip"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("\(path):3:3: error[type-error]: starts_on: \"4/6/2028\" could be day/month or month/day"))
        #expect(try database.connect().query("select starts_on || ' ' || ends_on from summer_missions where code = 'tahoe-2028'").text
            == "2028-06-13 2028-07-22")
    }

    @Test("the Get Involved answers of the staff table: names, words and availability as people write them")
    func getInvolved() throws {
        let database = try TestDatabase(importing: "central-coast")
        let path = TestEnvironment.fixture("staff-sheets/get-involved.csv")
        let result = try database.run(["place", path, "--format", "csv"])
        #expect(result.status == 1, "\(result.stderr)")
        let outcomes = PlaceFixture.csvRows(result.stdout).dropFirst().map { Array($0[0...4]) }
        #expect(outcomes == [
            ["2", "iris.alvarez@calpoly.edu", "placed", "", "cp-small-tue"],  // Tuesday 7pm, Cal Poly SLO
            ["3", "jade.brooks@calpoly.edu", "no-matching-group", "time", ""],  // MWF 3-5: no Bridges group then
            ["4", "kai.chen@calpoly.edu", "placed", "", "cp-fr-men-mon"],  // M/W 7-9, Cru at Cal Poly
            ["5", "lena.diaz@calpoly.edu", "placed", "", "greek-mixed-thu"],  // TTh evenings, Greek
            ["6", "max.evans@calpoly.edu", "placed", "", "epic-men-tue"],  // Tu 7-9pm, Epic
            ["7", "nia.fox@calpoly.edu", "placed", "", "destino-cp-women-mon"],  // Monday or Wednesday night
            ["8", "oli.grant@calpoly.edu", "no-matching-group", "time", ""],  // sex unknown: mixed Bridges meets Friday only
            ["9", "pete.hale@calpoly.edu", "placed", "", "cp-small-tue"],  // weekday evenings except Wed
            ["10", "quinn.ives@calpoly.edu", "placed", "", "cp-small-tue"],  // Flexible, 5th Year
            ["11", "rae.jones@calpoly.edu", "unparseable-availability", "", ""],  // Tuesday after class
        ])
        #expect(result.stderr.contains("\(path):11:10: error[type-error]: availability \"Tuesday after class\""))
        #expect(result.stderr.contains("hint: write days and times such as"))
        #expect(try database.connect().query("select phone from people where email = 'iris.alvarez@calpoly.edu'").text == "+18055550107")
    }
}
