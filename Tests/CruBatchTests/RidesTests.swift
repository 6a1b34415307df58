import CruBatch
import CruBatchTestSupport
import Foundation
import PostgresClient
import Testing

/// Ride sharing for events: offers by members only, requests by anyone (a newcomer is added as a
/// non-member), cancelling, the cars of an event for people, and nightly's rides files.
@Suite("rides")
struct RidesTests {
    private let scratch = ScratchDirectory()

    private static let offerHeader =
        "event,email,direction,seats,departs_to,departs_from,pickup_location,latitude,longitude,postal_code,status\n"
    private static let requestHeader = "event,email,first_name,last_name,phone,direction,pickup_location,latitude,longitude,"
        + "postal_code,earliest_departure,latest_departure,status\n"

    /// A guest of central-coast's ride requests: a non-member.
    private static let guest = "jordan.whitfield@gmail.com"


    /// The id of the offer of `driver` (or request of `passenger`) for `event`.
    private func id(_ table: String, _ email: String, _ event: String, in database: TestDatabase) throws -> Int {
        let person = table == "ride_offers" ? "driver_id" : "passenger_id"
        return try database.count("""
            select r.id from \(identifier: table) r join people p on p.id = r.\(identifier: person) join events e on e.id = r.event_id
            where p.email = \(email) and e.code = \(event)
            """)
    }

    /// Seats the requests of `passengers` in the offer of `driver` for `event`, on `leg`, as `rides pair` would.
    private func pair(_ driver: String, _ passengers: [String], leg: String, event: String, in database: TestDatabase) throws {
        let offer = try id("ride_offers", driver, event, in: database)
        for passenger in passengers {
            let request = try id("ride_requests", passenger, event, in: database)
            try database.connect().query("insert into ride_pairings (offer_id, request_id, leg) values (\(offer), \(request), \(leg))")
        }
    }

    @Test("an offer file: a driver who is not a member (unknown, or only a passenger), seats outside 1-8, a missing departure and half a position are refused with file, line, column and reason; nothing is written")
    func offersRefused() throws {
        let database = try TestDatabase(importing: "central-coast")
        let file = try scratch.writeFile("ride-offers.csv", Self.offerHeader + """
            winter-conference-2026,kwame.mensah@cru.org,to,3,2026-12-28T08:00:00,,Rec Center,,,,open
            winter-conference-2026,stranger@example.edu,to,3,2026-12-28T08:00:00,,Rec Center,,,,open
            winter-conference-2026,\(Self.guest),to,3,2026-12-28T08:00:00,,Mission Plaza,,,,open
            winter-conference-2026,luis.garcia@cru.org,to,9,2026-12-28T08:00:00,,Rec Center,,,,open
            winter-conference-2026,andres.perez@cru.org,both,3,2026-12-28T08:00:00,,Rec Center,,,,open
            winter-conference-2026,ptran@calpoly.edu,to,3,2026-12-28T08:00:00,,Rec Center,35.3,,,open

            """)
        let offers = try database.count("select count(*) from ride_offers")
        let result = try database.run(["import", "ride-offers", file])
        #expect(result.status == 1, "\(result.stderr)")
        let reason = "error[not-a-member]: driver with this email is not a registered Cru member: only members offer rides"
        for expected in ["\(file):3:2: \(reason)", "\(file):4:2: \(reason)",
                         "\(file):5:4: error[out-of-range]: seats: 9 is out of range",
                         "\(file):6:6: error[missing-value]: departs_from is required for a ride back from the event",
                         "\(file):7:9: error[missing-value]: longitude is empty, but latitude is given"] {
            #expect(result.stderr.contains(expected), "\(expected)\n\(result.stderr)")
        }
        #expect(!result.stderr.contains("stranger@example.edu") && !result.stderr.contains(Self.guest))
        #expect(result.stdout.contains("5 errors, 0 warnings: nothing was written"), "\(result.stdout)")
        #expect(try database.count("select count(*) from ride_offers") == offers)
    }

    @Test("a request from someone crubatch does not know adds them as a non-member, who cannot drive until students.csv lists them")
    func newcomerRequests() throws {
        let database = try TestDatabase(importing: "central-coast")
        let unnamed = try scratch.writeFile("unnamed/ride-requests.csv", Self.requestHeader
            + "winter-conference-2026,sam.new@example.edu,,,,to,Mission Plaza,,,,,,\n")
        let refused = try database.run(["import", "ride-requests", unnamed])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("\(unnamed):2:3: error[missing-value]: first_name is required for a passenger crubatch does not know yet"),
                "\(refused.stderr)")
        #expect(try database.count("select count(*) from people where email = 'sam.new@example.edu'") == 0)

        let file = try scratch.writeFile("ride-requests.csv", Self.requestHeader
            + "winter-conference-2026,Sam.New@example.edu,Sam,New,(805) 555-0142,to,Mission Plaza,,,93401,,,\n")
        let result = try database.run(["import", "ride-requests", file])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("ride-requests: added 1 person as a non-member"), "\(result.stdout)")
        let person = try database.connect().query("""
            select first_name, last_name, phone, is_member::text, is_leader::text from people where email = 'sam.new@example.edu'
            """).texts
        #expect(person == [["Sam", "New", "+18055550142", "false", "false"]])
        #expect(try database.count("""
            select count(*) from ride_requests r join people p on p.id = r.passenger_id
            where p.email = 'sam.new@example.edu' and r.status = 'pending' and r.direction = 'to'
            """) == 1)
        #expect(!(try database.run(["export", "students"]).stdout.contains("sam.new@example.edu")))

        let offer = try scratch.writeFile("offer/ride-offers.csv", Self.offerHeader
            + "winter-conference-2026,sam.new@example.edu,to,2,2026-12-28T08:00:00,,Mission Plaza,,,,\n")
        #expect(try database.run(["import", "ride-offers", offer]).stderr.contains("error[not-a-member]"))
        let students = try scratch.writeFile("students.csv", "email,first_name,last_name\nsam.new@example.edu,Sam,New\n")
        #expect(try database.run(["import", "students", students]).status == 0)
        #expect(try database.count("select count(*) from people where email = 'sam.new@example.edu' and is_member") == 1)
        let member = try database.run(["import", "ride-offers", offer])
        #expect(member.status == 0, "\(member.stderr)")
    }

    @Test("import, export, import again: the rides change nothing, and a fresh database gives the same bytes")
    func roundTrip() throws {
        let source = try LoadedDatabase.get()
        let folder = try scratch.folder("first")
        for kind in ["ride-offers", "ride-requests"] {
            #expect(try source.run(["export", kind, "--out", "\(folder)/\(kind).csv"]).status == 0)
        }
        let again = try jsonObject(try source.run(["import", "--dir", folder, "--dry-run", "--format", "json", "--wait"]).stdout)
        let files = try #require(again["files"] as? [[String: Any]])
        #expect(files.map { $0["unchanged"] as? Int } == [6, 8])
        #expect(files.allSatisfy { $0["would_insert"] as? Int == 0 && $0["would_update"] as? Int == 0 })

        let fresh = try TestDatabase(importing: "central-coast")
        #expect(try fresh.run(["import", "--dir", folder]).status == 0)
        for kind in ["ride-offers", "ride-requests"] {
            let first = try String(contentsOfFile: "\(folder)/\(kind).csv", encoding: .utf8)
            #expect(try fresh.run(["export", kind]).stdout == first, "\(kind)")
        }
    }

    @Test("cancelling an offer ends its pairings and its passengers' requests wait again; undo puts the car back")
    func cancelOffer() throws {
        let database = try TestDatabase(importing: "central-coast")
        let (retreat, driver) = ("fall-retreat-2026", "lauren.oneill@cru.org")
        try pair(driver, ["mkahananui@calpoly.edu", Self.guest], leg: "to", event: retreat, in: database)
        try pair(driver, ["mkahananui@calpoly.edu"], leg: "from", event: retreat, in: database)
        try pair("luca.dubois68@icloud.com", ["abigail.kowalski@my.cuesta.edu"], leg: "to", event: retreat, in: database)
        let offer = try id("ride_offers", driver, retreat, in: database)
        let passengers = try [id("ride_requests", "mkahananui@calpoly.edu", retreat, in: database),
                              id("ride_requests", Self.guest, retreat, in: database)]

        let result = try database.run(["rides", "cancel", "--offer", String(offer)])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("3 pairings ended; requests \(passengers.map(String.init).joined(separator: ", ")) wait for a ride again"),
                "\(result.stdout)")
        #expect(try database.connect().query("""
            select status, (ended_at is not null)::text from ride_offers where id = \(offer)
            """).texts == [["cancelled", "true"]])
        #expect(try database.count("""
            select count(*) from ride_pairings where offer_id = \(offer) and ended_at is not null and end_reason = 'offer-cancelled'
            """) == 3)
        #expect(try database.count("""
            select count(*) from ride_requests r where r.id = any(\(passengers)::bigint[]) and r.status = 'pending'
            and not exists (select 1 from ride_pairings p where p.request_id = r.id and p.ended_at is null)
            """) == 2)
        #expect(try database.count("select count(*) from ride_pairings where ended_at is null") == 1)
        #expect(try database.run(["rides", "cancel", "--offer", String(offer)]).stdout.contains("was cancelled already; nothing changed"))

        let run = try database.count("select max(id) from import_runs where kind = 'rides-cancel'")
        let shown = try database.run(["runs", "show", String(run)])
        #expect(shown.stdout.contains("rides cancel offer \(offer)"), "\(shown.stdout)")
        #expect(shown.stdout.contains("ride_pairings    3") && shown.stdout.contains("ride_offers      1"), "\(shown.stdout)")
        #expect(try database.run(["undo", String(run)]).status == 0)
        #expect(try database.count("select count(*) from ride_pairings where ended_at is null") == 4)
        #expect(try database.count("select count(*) from ride_offers where id = \(offer) and status = 'open'") == 1)
    }

    @Test("cancelling a request ends its pairing and frees its seat; an import of status cancelled does the same")
    func cancelRequest() throws {
        let database = try TestDatabase(importing: "central-coast")
        let (winter, driver) = ("winter-conference-2026", "jasmine.bautista@my.cuesta.edu")
        try database.connect().query("""
            update ride_offers set seats = 1 where id = \(try id("ride_offers", driver, winter, in: database))
            """)
        try pair(driver, ["priya.ramanathan@yahoo.com"], leg: "to", event: winter, in: database)
        #expect(throws: PostgresError.self) { try pair(driver, ["anguyen@calpoly.edu"], leg: "to", event: winter, in: database) }

        let request = try id("ride_requests", "priya.ramanathan@yahoo.com", winter, in: database)
        let result = try database.run(["rides", "cancel", "--request", String(request), "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try jsonObject(result.stdout)
        #expect(report["pairings_ended"] as? Int == 1 && report["kind"] as? String == "request")
        #expect(try database.count("""
            select count(*) from ride_pairings where request_id = \(request) and end_reason = 'request-cancelled'
            """) == 1)
        try pair(driver, ["anguyen@calpoly.edu"], leg: "to", event: winter, in: database)

        let file = try scratch.writeFile("ride-requests.csv", Self.requestHeader
            + "\(winter),anguyen@calpoly.edu,,,,both,\"Cal Poly Rec Center, Grand Ave lot\",35.301600,-120.657800,,,,cancelled\n")
        #expect(try database.run(["import", "ride-requests", file]).status == 0)
        #expect(try database.count("""
            select count(*) from ride_pairings p join ride_requests r on r.id = p.request_id
            where r.status = 'cancelled' and p.end_reason = 'request-cancelled'
            """) == 2)
        #expect(try database.run(["rides", "cancel", "--request", "999999"]).status == 64)
    }

    @Test("export rides: the exact bytes of a car for people, mode 0600; its JSON")
    func exportRides() throws {
        let database = try TestDatabase(importing: "central-coast")
        let (beach, driver) = ("aia-beach-day", "jiwoo.jung@gmail.com")
        try pair(driver, ["sfonoti@calpoly.edu"], leg: "to", event: beach, in: database)
        let offer = try id("ride_offers", driver, beach, in: database)
        let request = try id("ride_requests", "sfonoti@calpoly.edu", beach, in: database)
        let out = try scratch.folder() + "/beach.csv"

        let result = try database.run(["export", "rides", "--event", beach, "--out", out])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("wrote 1 cars to \(out)"))
        let expected = "\u{FEFF}" + [
            "Event,AIA Beach Day at Avila (aia-beach-day)", "Starts,2026-10-03 10:00", "Location,Avila Beach",
            "Ride sharing,to the event", "",
            "Offer,\(offer)", "Driver,Ji-woo Jung,jiwoo.jung@gmail.com,(805) 555-0189", "Goes,to the event",
            "Leaves for the event,2026-10-03 09:30", "Pickup,\"Cal Poly Rec Center, Grand Ave lot\"", "Seats,4",
            "Request,First name,Last name,Phone,Rides,Pickup", "\(request),Sione,Fonoti,(559) 555-0192,to the event,Yakʔitʸutʸu Hall",
            "",
        ].map { $0 + "\r\n" }.joined()
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == Data(expected.utf8))
        #expect(try FileManager.default.attributesOfItem(atPath: out)[.posixPermissions] as? Int == 0o600)

        let document = try jsonObject(try database.run(["export", "rides", "--event", beach, "--format", "json"]).stdout)
        #expect(document["kind"] as? String == "rides" && document["format"] as? Int == 1)
        let car = try #require((document["cars"] as? [[String: Any]])?.first)
        #expect(car["seats"] as? Int == 4 && car["departs_to"] as? String == "2026-10-03 09:30")
        let passenger = try #require((car["passengers"] as? [[String: Any]])?.first)
        #expect(passenger["legs"] as? [String] == ["to"] && passenger["phone"] as? String == "+15595550192")

        #expect(try database.run(["export", "rides", "--event", "nope"]).status == 64)
    }

    @Test("nightly writes the rides file of each upcoming event that shares rides, listed in the manifest")
    func nightlyRides() throws {
        let database = try LoadedDatabase.get()
        let out = try scratch.folder() + "/nightly"
        let result = try database.run(["nightly", "--out", out, "--date", "2026-10-01"])
        #expect(result.status == 0, "\(result.stderr)")
        let folder = out + "/latest"
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/rides").sorted() == [
            "aia-beach-day.csv", "bridges-thanksgiving.csv", "destino-noche.csv", "fall-retreat-2026.csv",
            "winter-conference-2026.csv",
        ])
        let retreat = folder + "/rides/fall-retreat-2026.csv", single = out + "/retreat.csv"
        #expect(try database.run(["export", "rides", "--event", "fall-retreat-2026", "--out", single]).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: retreat)) == Data(contentsOf: URL(fileURLWithPath: single)))
        let manifest = try jsonObject(try String(contentsOfFile: folder + "/manifest.json", encoding: .utf8))
        let entry = try #require((manifest["files"] as? [[String: Any]])?.first { $0["file"] as? String == "rides/fall-retreat-2026.csv" })
        #expect(entry["rows"] as? Int == 2)
        #expect(entry["sha256"] as? String == (try sha256sum(retreat)))
    }

    @Test("forgetting a driver cancels their car: its passengers wait again, and it leaves the rides export")
    func forgetDriver() throws {
        let database = try TestDatabase(importing: "central-coast")
        let (retreat, driver) = ("fall-retreat-2026", "lauren.oneill@cru.org")
        try pair(driver, ["mkahananui@calpoly.edu"], leg: "to", event: retreat, in: database)
        let forget = try database.run(["forget", driver])
        #expect(forget.status == 0, "\(forget.stderr)")
        #expect(forget.stdout.contains("1 ride offer or request cancelled"), "\(forget.stdout)")
        #expect(try database.count("select count(*) from ride_pairings where ended_at is null") == 0)
        let cars = try database.run(["export", "rides", "--event", retreat]).stdout
        #expect(!cars.contains("Forgotten") && cars.contains("Driver,Luca Dubois"), "\(cars)")
    }

    @Test("migration 9 reads an event's rideshare yes as both ways, in the table and in earlier change images")
    func migrationKeepsRideshare() throws {
        let database = try TestDatabase.empty()
        let connection = try database.connect()
        _ = try Migrator(connection: connection, migrations: Migration.all.filter { $0.version < 9 }).migrate()
        try connection.script("""
            insert into events (code, name, starts_at, rideshare) values ('picnic', 'Picnic', now(), true), ('talk', 'Talk', now(), false);
            insert into run_changes (run_id, table_name, row_id, operation, before, after)
            select 1, 'events', id, 'update', to_jsonb(e) || '{"rideshare": false}', to_jsonb(e) from events e;
            """)
        #expect(try database.run(["migrate"]).status == 0)
        #expect(try connection.query("select code, rideshare from events order by code").texts == [["picnic", "both"], ["talk", "no"]])
        #expect(try connection.query("""
            select before->>'rideshare', after->>'rideshare' from run_changes order by row_id
            """).texts == [["no", "both"], ["no", "no"]])
    }
}
