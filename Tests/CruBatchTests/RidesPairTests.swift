@testable import CruBatch
import CruBatchTestSupport
import Foundation
import PostgresClient
import Testing

/// `crubatch rides pair` on the central-coast rides: the pairings it writes, what it keeps on a
/// re-run, undo, the waiting legs with their reasons, and its outputs and refusals.
@Suite("rides pair")
struct RidesPairTests {
    private let scratch = ScratchDirectory()

    /// The active pairings of `event`: passenger email, leg, driver email; sorted.
    private func pairings(_ event: String, in database: TestDatabase) throws -> [[String?]] {
        try database.connect().query("""
            select q.email, p.leg, d.email from ride_pairings p
            join ride_offers o on o.id = p.offer_id join people d on d.id = o.driver_id
            join ride_requests r on r.id = p.request_id join people q on q.id = r.passenger_id
            join events e on e.id = o.event_id
            where e.code = \(event) and p.ended_at is null order by 1, p.leg = 'from'
            """).texts
    }

    @Test("--event pairs the fall retreat by the rules, keeps its pairings on a re-run, and undo takes them back")
    func pairEvent() throws {
        let database = try TestDatabase(importing: "central-coast")
        let result = try database.run(["rides", "pair", "--event", "Fall-Retreat-2026", "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        let (lauren, luca) = ("lauren.oneill@cru.org", "luca.dubois68@icloud.com")
        // Abigail shares Luca's postal code; Jordan is 2.5 km from Lauren's coordinates; Makoa can be
        // placed by neither (names only), so the lower offer id takes him; only Lauren comes back.
        #expect(try pairings("fall-retreat-2026", in: database) == [
            ["abigail.kowalski@my.cuesta.edu", "to", luca],
            ["jordan.whitfield@gmail.com", "to", lauren], ["jordan.whitfield@gmail.com", "from", lauren],
            ["mkahananui@calpoly.edu", "to", lauren], ["mkahananui@calpoly.edu", "from", lauren],
            ["rbronte@calpoly.edu", "from", lauren],
        ])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(document["command"] as? String == "rides pair")
        // The report's text tables, set while the last leg is written, are no part of the document.
        #expect(Set(document.keys) == ["format", "command", "events", "pairings", "waiting", "run_id", "dry_run",
                                        "seconds"], "\(document.keys.sorted())")
        let events = try #require(document["events"] as? [[String: Any]])
        #expect(events.map { $0["code"] as? String } == ["fall-retreat-2026"])
        #expect(events.first?["offers"] as? Int == 2 && events.first?["requests"] as? Int == 4)
        #expect(events.first?["paired"] as? Int == 6 && events.first?["waiting"] as? Int == 0)
        let jordan = try #require((document["pairings"] as? [[String: Any]])?.first {
            ($0["passenger"] as? [String: Any])?["email"] as? String == "jordan.whitfield@gmail.com" && $0["leg"] as? String == "to"
        })
        #expect(jordan["measured"] as? Bool == true && jordan["leaves"] as? String == "2026-10-16 15:30")
        #expect((2_000...3_000).contains(jordan["metres"] as? Int ?? 0))
        let run = try #require(document["run_id"] as? Int)

        let again = try database.run(["rides", "pair", "--event", "fall-retreat-2026"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("fall-retreat-2026: 2 offers, 4 requests; 0 pairings made, 6 kept, 0 legs waiting"),
                "\(again.stdout)")
        #expect(try database.run(["rides", "pair", "--event", "fall-retreat-2026", "--quiet"]).stdout.isEmpty)
        #expect(try pairings("fall-retreat-2026", in: database).count == 6)

        let shown = try database.run(["runs", "show", String(run)])
        #expect(shown.stdout.contains("run \(run): rides pair event fall-retreat-2026"), "\(shown.stdout)")
        let undone = try database.run(["undo", String(run)])
        #expect(undone.status == 0, "\(undone.stderr)")
        #expect(try pairings("fall-retreat-2026", in: database) == [])
    }

    @Test("every event still to come: the most passengers seated, not first come; each waiting leg says why; exit 1")
    func upcomingEvents() throws {
        let database = try TestDatabase(importing: "central-coast")
        try database.connect().script("""
            update events set starts_at = now() + interval '30 days', ends_at = now() + interval '31 days'
            where code in ('winter-conference-2026', 'bridges-thanksgiving');
            update events set starts_at = now() - interval '30 days', ends_at = null where code = 'fall-retreat-2026'
            """)
        // Four riders can leave only with Jasmine's 3-seat car (08:30); Priya could go with Jasmine or
        // with Garrett (09:00). Eli leaves too late for any car; nobody drives back from Bridges.
        let cuesta = "to,\"Cuesta College, parking lot 2\",,,93405,2026-12-28T08:00:00,2026-12-28T08:45:00,"
        let requests = try scratch.writeFile("ride-requests.csv", """
            event,email,first_name,last_name,phone,direction,pickup_location,latitude,longitude,postal_code,earliest_departure,latest_departure,status
            winter-conference-2026,ana.one@example.edu,Ana,One,,\(cuesta)
            winter-conference-2026,ben.two@example.edu,Ben,Two,,\(cuesta)
            winter-conference-2026,cy.three@example.edu,Cy,Three,,\(cuesta)
            winter-conference-2026,dee.four@example.edu,Dee,Four,,\(cuesta)
            winter-conference-2026,eli.late@example.edu,Eli,Late,,to,Mission Plaza,,,,2026-12-28T10:00:00,2026-12-28T11:00:00,
            bridges-thanksgiving,fay.home@example.edu,Fay,Home,,from,Mission Plaza,,,,,,

            """)
        let imported = try database.run(["import", "ride-requests", requests])
        #expect(imported.status == 0, "\(imported.stderr)")

        let dry = try database.run(["rides", "pair", "--dry-run", "--format", "csv"])
        #expect(dry.status == 1, "\(dry.stderr)")
        let rows = dry.stdout.split(separator: "\r\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        #expect(rows.first?.joined(separator: ",") == "event,leg,request,passenger,email,outcome,offer,driver,driver_email,leaves,metres,reason")
        #expect(rows.dropFirst().map { "\($0[4]) \($0[1]) \($0[5]) \($0[8])\($0[11])" } == [
            "anguyen@calpoly.edu to paired garrett.stewart@cru.org",
            "priya.ramanathan@yahoo.com to paired garrett.stewart@cru.org",
            "ana.one@example.edu to paired jasmine.bautista@my.cuesta.edu",
            "ben.two@example.edu to paired jasmine.bautista@my.cuesta.edu",
            "cy.three@example.edu to paired jasmine.bautista@my.cuesta.edu",
            "anguyen@calpoly.edu from paired garrett.stewart@cru.org",
            "fay.home@example.edu from waiting no-driver-that-way",
            "dee.four@example.edu to waiting cars-full",
            "eli.late@example.edu to waiting no-driver-in-window",
        ])
        #expect(try database.count("select count(*) from ride_pairings") == 0)

        let result = try database.run(["rides", "pair"])
        #expect(result.status == 1, "\(result.stderr)")
        for line in ["bridges-thanksgiving    from  Fay Home", "no driver goes that way",
                     "winter-conference-2026  to    Dee Four", "all cars in the window are full",
                     "winter-conference-2026  to    Eli Late", "no driver leaves in the window",
                     "bridges-thanksgiving: 0 offers, 1 request; 0 pairings made, 0 kept, 1 leg waiting",
                     "winter-conference-2026: 2 offers, 7 requests; 6 pairings made, 0 kept, 2 legs waiting",
                     "6 pairings made, 3 request legs waiting"] {
            #expect(result.stdout.contains(line), "\(line)\n\(result.stdout)")
        }
        #expect(try pairings("winter-conference-2026", in: database).count == 6)
        #expect(try pairings("fall-retreat-2026", in: database) == [])
    }

    @Test("an unknown event, one that shares no rides, and a ride import running are refused")
    func refusals() throws {
        let database = try TestDatabase(importing: "central-coast")
        let unknown = try database.run(["rides", "pair", "--event", "no-such-event"])
        #expect(unknown.status == 64 && unknown.stderr.contains("no event no-such-event"), "\(unknown.stderr)")
        let none = try database.run(["rides", "pair", "--event", "cuesta-welcome-lunch"])
        #expect(none.status == 64 && none.stderr.contains("does not share rides"), "\(none.stderr)")

        let holder = try database.connect()
        let key = WriterLocks.importKey(.rideRequests)
        #expect(try holder.tryAdvisoryLock(key))
        let locked = try database.run(["rides", "pair", "--event", "fall-retreat-2026"])
        #expect(locked.status == 75, "\(locked.stderr)")
        #expect(locked.stderr.contains("another rides pair, rides cancel or an import of ride offers or requests"))
        try holder.advisoryUnlock(key)
        #expect(try database.count("select count(*) from ride_pairings") == 0)
    }
}
