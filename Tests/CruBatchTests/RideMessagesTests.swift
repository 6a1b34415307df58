import CruBatchTestSupport
import Foundation
import PostgresClient
import Testing

/// The ride messages, end to end through the built binary into the SMTP sink: `ride-paired`,
/// `ride-full`, `ride-cancelled` and `seat-freed`, queued by the database for any writer (pairings
/// are inserted by SQL here, as the app or `rides pair` would), each sent exactly once.
@Suite("notify: ride messages")
struct RideMessagesTests {
    private let scratch = ScratchDirectory()


    private func notify(_ database: TestDatabase, _ arguments: [String] = []) throws -> CommandResult {
        try database.run(["notify", "--smtp-url", try MailSink.url()] + arguments)
    }

    /// Every message this database's notify sent, read under Python's strict policy.
    private func mails(_ database: TestDatabase) throws -> [StrictMail] {
        try StrictMail.parse(try MailSink.rawMessages(containing: ".\(database.name)@crubatch>"))
    }

    /// How many notifications of `kind` are in `status`.
    private func count(_ kind: String, _ status: String, in database: TestDatabase) throws -> Int {
        try database.count("select count(*) from notifications where kind = \(kind) and status = \(status)")
    }

    /// The id of the offer of `dN`, or the request of `pN`.
    private func id(_ table: String, _ email: String, in database: TestDatabase) throws -> Int {
        let person = table == "ride_offers" ? "driver_id" : "passenger_id"
        return try database.count("""
            select r.id from \(identifier: table) r join people p on p.id = r.\(identifier: person) where p.email = \(email)
            """)
    }

    @Test("pairings queue one ride-paired to the driver and one to the passenger each, and one ride-full per leg filled, however many rows a statement adds; two notify processes send each exactly once, every message parses strictly, replies reach the other one")
    func pairedAndFull() throws {
        // Six cars of 4 seats both ways, 24 passengers both ways: every leg of every car filled in
        // one statement; a seventh car of 3 seats to the retreat gets 2 passengers (not full).
        let database = try RideShare.database(Array(repeating: RideShare.Car(seats: 4), count: 6) + [RideShare.Car(direction: "to", seats: 3)],
                                 riders: Array(repeating: "both", count: 24) + ["to", "to"])
        try RideShare.pair((1...24).flatMap { rider in ["to", "from"].map { (driver: (rider - 1) / 4 + 1, rider: rider, leg: $0) } },
                 in: database)
        try RideShare.pair([(driver: 7, rider: 25, leg: "to"), (driver: 7, rider: 26, leg: "to")], in: database)
        #expect(try count("ride-paired", "pending", in: database) == 2 * 50)
        #expect(try count("ride-full", "pending", in: database) == 12)
        #expect(try database.count("select count(*) from notifications") == 112)

        let preview = try database.run(["notify", "--preview", "ride-paired"])
        #expect(preview.status == 0, "\(preview.stderr)")
        #expect(preview.stdout.contains("Reply-To: "), "\(preview.stdout)")
        let full = try database.run(["notify", "--preview", "ride-full"])
        #expect(full.stdout.contains("Subject: Your car "), "\(full.stdout)")
        #expect(try database.count("select count(*) from notifications where status = 'pending' and attempts = 0") == 112)

        let url = try MailSink.url()
        let notifiers = try (0..<2).map { _ in try database.start(["notify", "--no-digest", "--smtp-url", url]) }
        for notifier in notifiers {
            let result = try notifier.finish()
            #expect(result.status == 0, "\(result.stderr)")
        }
        #expect(try database.count("select count(*) from notifications where status = 'sent' and attempts = 1") == 112)
        #expect(try notify(database, ["--now"]).stderr.contains("sent 0,"))
        let mails = try mails(database)
        #expect(mails.count == 112)
        #expect(Set(mails.compactMap(\.notificationID)).count == 112)

        // Each goes to its recipient; a driver's replies reach the passenger, a passenger's the
        // driver; ride-full replies to nobody in particular.
        let expected = try database.connect().query("""
            select n.id, n.kind, r.email, case when n.kind = 'ride-full' then null
                                               when n.recipient_id = o.driver_id then q.email else d.email end,
                   p.leg
            from notifications n join people r on r.id = n.recipient_id join ride_pairings p on p.id = n.ride_pairing_id
            join ride_offers o on o.id = p.offer_id join people d on d.id = o.driver_id
            join ride_requests rq on rq.id = p.request_id join people q on q.id = rq.passenger_id
            """).rows
        var byID: [Int: [String?]] = [:]
        for row in expected { byID[try row.decode(Int.self, 0)] = (1..<5).map { row[$0] } }
        for mail in mails {
            let want = try #require(mail.notificationID.flatMap { byID[$0] }, "\(mail.subject)")
            #expect(mail.to == [want[1]!])
            #expect(mail.replyTo == (want[2].map { [$0] } ?? []), "\(mail.subject)")
            let trip = want[3] == "to" ? "to Fall Retreat" : "back from Fall Retreat"
            switch (want[0], want[1]!.hasSuffix("@example.org")) {
            case ("ride-full", _):
                #expect(mail.subject == "Your car \(trip) is full")
                #expect(mail.body.contains("All 4 seats of your car \(trip)"), "\(mail.body)")
            case (_, true):
                #expect(mail.subject.hasSuffix(" Rider rides with you \(trip)"), "\(mail.subject)")
                #expect(mail.body.contains("  Email:  \(want[2]!)"))
                #expect(mail.body.contains("  Phone:  (805) 555-05"), "phones are written for people: \(mail.body)")
                #expect(mail.body.contains("  Pickup: Dorm "))
            case (_, false):
                #expect(mail.subject.hasPrefix("Your ride \(trip): Dana"), "\(mail.subject)")
                #expect(mail.body.contains("  Email:  \(want[2]!)"))
                #expect(mail.body.contains("  Phone:  (805) 555-01"))
                let leaves = want[3] == "to" ? "Friday, October 16 at 15:30" : "Sunday, October 18 at 13:30"
                #expect(mail.body.contains("the car leaves \(leaves) from Rec Center lot"), "\(mail.body)")
                #expect(mail.body.contains("Fall Retreat starts Friday, October 16 at 17:00, Camp Ocean Pines."))
            }
            #expect(!mail.body.contains("+1805"))
        }
        let status = try database.run(["status"])
        #expect(status.stdout.contains("  ride-paired: 100 sent"), "\(status.stdout)")
        #expect(status.stdout.contains("  ride-full: 12 sent"), "\(status.stdout)")
    }

    @Test("a driver with more ride messages due than --digest-over gets one rides digest without Reply-To; each passenger gets theirs one by one")
    func driversDigest() throws {
        let database = try RideShare.database([RideShare.Car(direction: "to", seats: 4)], riders: ["to", "to", "to", "to"])
        try RideShare.pair((1...4).map { (driver: 1, rider: $0, leg: "to") }, in: database)
        let result = try notify(database)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("sent 9 in 5 emails,"), "\(result.stderr)")
        let mails = try mails(database)
        #expect(mails.count == 5)
        let digest = try #require(mails.first { $0.to == ["d1@example.org"] })
        #expect(digest.subject == "Your rides: 5 updates")
        #expect(digest.replyTo.isEmpty)
        #expect((1...4).allSatisfy { digest.body.contains("  Email:  p\($0)@example.edu") }, "\(digest.body)")
        #expect(digest.body.contains("Your car to Fall Retreat is full: all 4 seats are taken."), "\(digest.body)")
        #expect(digest.body.hasPrefix("Hi Dana1,"))
        let single = mails.filter { $0.to != ["d1@example.org"] }
        #expect(single.count == 4 && single.allSatisfy { $0.replyTo == ["d1@example.org"] })
    }

    @Test("a driver cancels: each passenger told is sent one ride-cancelled per leg, their requests wait again; a passenger not yet told hears nothing and the car's pending ride-full is cancelled; an undo afterwards announces every pairing again")
    func driverCancels() throws {
        let database = try RideShare.database([RideShare.Car(seats: 3), RideShare.Car(seats: 3)], riders: ["both", "to", "from", "to", "to"])
        try RideShare.pair([(driver: 1, rider: 1, leg: "to"), (driver: 1, rider: 1, leg: "from"), (driver: 1, rider: 2, leg: "to"),
                  (driver: 1, rider: 3, leg: "from"), (driver: 2, rider: 5, leg: "to")], in: database)
        #expect(try notify(database, ["--no-digest"]).stderr.contains("sent 10,"))
        // Passenger 4 takes the last seat to the retreat; notify has not run when the driver cancels.
        try RideShare.pair([(driver: 1, rider: 4, leg: "to")], in: database)
        #expect(try count("ride-paired", "pending", in: database) == 2)
        #expect(try count("ride-full", "pending", in: database) == 1)

        let offer = try id("ride_offers", "d1@example.org", in: database)
        let cancel = try database.run(["rides", "cancel", "--offer", String(offer)])
        #expect(cancel.status == 0, "\(cancel.stderr)")
        #expect(cancel.stdout.contains("5 pairings ended"), "\(cancel.stdout)")
        #expect(cancel.stdout.hasSuffix("; 4 messages queued\n"), "\(cancel.stdout)")
        #expect(try count("ride-cancelled", "pending", in: database) == 4)
        #expect(try count("ride-paired", "cancelled", in: database) == 2)
        #expect(try count("ride-full", "cancelled", in: database) == 1)
        #expect(try database.count("select count(*) from ride_requests where status = 'pending'") == 5)
        #expect(try database.count("select count(*) from ride_pairings where ended_at is null") == 1)

        let sent = try notify(database, ["--no-digest"])
        #expect(sent.stderr.contains("sent 4,"), "\(sent.stderr)")
        let cancelled = try mails(database).filter { $0.subject.hasSuffix(" is cancelled") }
        #expect(cancelled.count == 4)
        #expect(cancelled.map { $0.to[0] }.sorted() == ["p1@example.edu", "p1@example.edu", "p2@example.edu", "p3@example.edu"])
        #expect(Set(cancelled.map(\.subject))
                == ["Your ride to Fall Retreat is cancelled", "Your ride back from Fall Retreat is cancelled"])
        #expect(cancelled.allSatisfy {
            $0.replyTo == ["d1@example.org"] && $0.body.contains("Dana1 Driver can no longer drive you")
        })
        #expect(try mails(database).filter { $0.to == ["p4@example.edu"] }.isEmpty)
        #expect(try database.run(["notify", "--preview", "ride-cancelled"]).stdout.contains("Subject: Your ride "))
        #expect(try database.count("""
            select count(*) from notifications where kind = 'ride-cancelled' and status = 'sent' and attempts = 1
            """) == 4)

        // Undone after the passengers were told: every pairing is announced again, to both, and the
        // car is full again on the way there.
        let run = try database.count("select max(id) from import_runs where kind = 'rides-cancel'")
        let undo = try database.run(["undo", String(run)])
        #expect(undo.stdout.contains("ride_pairings 5 restored, 0 removed; 0 pending notifications cancelled"), "\(undo.stdout)")
        #expect(try count("ride-paired", "pending", in: database) == 10)
        #expect(try count("ride-full", "pending", in: database) == 1)
    }

    @Test("a passenger cancels: the driver is sent one seat-freed; a seat freed and filled again sends a new ride-full, once; a cancellation before notify runs cancels the pending ride-full")
    func passengerCancels() throws {
        let database = try RideShare.database([RideShare.Car(direction: "to", seats: 2)], riders: ["to", "to", "to", "to"])
        try RideShare.pair([(driver: 1, rider: 1, leg: "to"), (driver: 1, rider: 2, leg: "to")], in: database)
        #expect(try notify(database, ["--no-digest"]).stderr.contains("sent 5,"))

        let request = try id("ride_requests", "p1@example.edu", in: database)
        let cancel = try database.run(["rides", "cancel", "--request", String(request), "--format", "json"])
        #expect(cancel.status == 0, "\(cancel.stderr)")
        #expect(try jsonObject(cancel.stdout)["messages_queued"] as? Int == 1, "\(cancel.stdout)")
        #expect(try notify(database, ["--no-digest"]).stderr.contains("sent 1,"))
        let freed = try mails(database).filter { $0.subject == "A seat is free in your car to Fall Retreat" }
        #expect(freed.count == 1)
        #expect(freed.first?.to == ["d1@example.org"] && freed.first?.replyTo == ["p1@example.edu"])
        #expect(freed.first?.body.contains("Pat1 Rider no longer rides with you to Fall Retreat") == true)

        // Filled again: a new ride-full.
        try RideShare.pair([(driver: 1, rider: 3, leg: "to")], in: database)
        #expect(try notify(database, ["--no-digest"]).stderr.contains("sent 3,"))
        #expect(try mails(database).filter { $0.subject == "Your car to Fall Retreat is full" }.count == 2)

        // The app cancels passenger 2's request, then passenger 4 takes the seat and cancels before
        // notify runs: the driver hears of passenger 2's seat only.
        try database.connect().execute("""
            update ride_requests set status = 'cancelled' where passenger_id = (select id from people where email = 'p2@example.edu')
            """)
        try RideShare.pair([(driver: 1, rider: 4, leg: "to")], in: database)
        try database.connect().execute("""
            update ride_requests set status = 'cancelled' where passenger_id = (select id from people where email = 'p4@example.edu')
            """)
        #expect(try notify(database, ["--no-digest"]).stderr.contains("sent 1,"))
        #expect(Set(try mails(database).filter { $0.subject.hasPrefix("A seat is free") }.flatMap(\.replyTo))
                == ["p1@example.edu", "p2@example.edu"])
        for (kind, sent, cancelled) in [("ride-paired", 6, 2), ("ride-full", 2, 1), ("seat-freed", 2, 0)] {
            #expect(try count(kind, "sent", in: database) == sent, "\(kind)")
            #expect(try count(kind, "cancelled", in: database) == cancelled, "\(kind)")
        }
        #expect(try database.count("select count(*) from notifications where status = 'pending'") == 0)
    }

    @Test("rides cancel --no-notify records its messages as suppressed; undo of a cancellation whose messages are still pending cancels them and tells nobody anything")
    func suppressedAndUndone() throws {
        let database = try RideShare.database([RideShare.Car(seats: 3), RideShare.Car(seats: 3)], riders: ["both", "to", "to"])
        try RideShare.pair([(driver: 1, rider: 1, leg: "to"), (driver: 1, rider: 1, leg: "from"), (driver: 2, rider: 2, leg: "to"),
                  (driver: 2, rider: 3, leg: "to")], in: database)
        #expect(try notify(database, ["--no-digest"]).stderr.contains("sent 8,"))

        let quiet = try database.run(["rides", "cancel", "--offer", String(try id("ride_offers", "d1@example.org", in: database)),
                                      "--no-notify"])
        #expect(quiet.stdout.contains("; 2 messages recorded as suppressed (--no-notify)"), "\(quiet.stdout)")
        #expect(try count("ride-cancelled", "suppressed", in: database) == 2)
        #expect(try notify(database, ["--now"]).stderr.contains("sent 0,"))

        let cancel = try database.run(["rides", "cancel", "--offer", String(try id("ride_offers", "d2@example.org", in: database)),
                                       "--format", "json"])
        let run = try #require(try jsonObject(cancel.stdout)["run_id"] as? Int, "\(cancel.stdout)")
        #expect(try count("ride-cancelled", "pending", in: database) == 2)
        let undo = try database.run(["undo", String(run)])
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(undo.stdout.contains("; 2 pending notifications cancelled"), "\(undo.stdout)")
        #expect(try database.count("""
            select count(*) from ride_pairings p join ride_offers o on o.id = p.offer_id join people d on d.id = o.driver_id
            where d.email = 'd2@example.org' and p.ended_at is null
            """) == 2)
        #expect(try database.count("select count(*) from notifications where status = 'pending'") == 0)
        #expect(try notify(database, ["--now"]).stderr.contains("sent 0,"))
    }

    @Test("an import of ride requests with status cancelled tells the driver, suppressed with --no-notify; forget deletes the messages about the person's pairings")
    func importAndForget() throws {
        let database = try RideShare.database([RideShare.Car(seats: 3), RideShare.Car(seats: 3)], riders: ["both", "to", "to"])
        try RideShare.pair([(driver: 1, rider: 1, leg: "to"), (driver: 1, rider: 1, leg: "from"), (driver: 1, rider: 2, leg: "to"),
                  (driver: 2, rider: 3, leg: "to")], in: database)
        #expect(try notify(database, ["--no-digest"]).stderr.contains("sent 8,"))

        let header = "event,email,direction,pickup_location,status\n"
        let loud = try scratch.writeFile("loud/ride-requests.csv", header + "retreat,p1@example.edu,both,Dorm 1,cancelled\n")
        #expect(try database.run(["import", "ride-requests", loud]).status == 0)
        #expect(try count("seat-freed", "pending", in: database) == 2)
        let quiet = try scratch.writeFile("quiet/ride-requests.csv", header + "retreat,p2@example.edu,to,Dorm 2,cancelled\n")
        #expect(try database.run(["import", "ride-requests", quiet, "--no-notify"]).status == 0)
        #expect(try count("seat-freed", "suppressed", in: database) == 1)

        // Driver 2 asks to be forgotten: passenger 3 is not told by a message naming a placeholder.
        let forget = try database.run(["forget", "d2@example.org"])
        #expect(forget.status == 0, "\(forget.stderr)")
        #expect(try database.count("select count(*) from notifications where kind = 'ride-cancelled'") == 0)
        let sent = try notify(database, ["--no-digest"])
        #expect(sent.stderr.contains("sent 2,"), "\(sent.stderr)")
        let freed = try mails(database).filter { $0.subject.hasPrefix("A seat is free in your car ") }
        #expect(freed.count == 2 && freed.allSatisfy { $0.to == ["d1@example.org"] && $0.replyTo == ["p1@example.edu"] })
    }

    @Test("ride templates are replaced from a templates folder like the others; an unknown field in one stops notify with its file and line")
    func templates() throws {
        let database = try RideShare.database([RideShare.Car(direction: "to", seats: 1)], riders: ["to"])
        try RideShare.pair([(driver: 1, rider: 1, leg: "to")], in: database)
        let good = try scratch.folder("good")
        try writeFile(good + "/ride-full.mustache", "Subject: Full: {{trip}}\n\n{{seats}} of {{seats}}, {{recipient_first_name}}.\n")
        let preview = try database.run(["notify", "--preview", "ride-full", "--templates", good])
        #expect(preview.stdout.contains("Subject: Full: to Fall Retreat\n"), "\(preview.stdout)")
        #expect(preview.stdout.contains("1 of 1, Dana1."))

        let bad = try scratch.folder("bad")
        try writeFile(bad + "/rides-digest.mustache", "Subject: rides\n\n{{#ride_paired}}\n{{passenger_nickname}}\n{{/ride_paired}}\n")
        let refused = try notify(database, ["--templates", bad])
        #expect(refused.status == 78)
        #expect(refused.stderr.contains("\(bad)/rides-digest.mustache:4:1: unknown field \"passenger_nickname\""),
                "\(refused.stderr)")
        #expect(try database.count("select count(*) from notifications where status = 'pending'") == 3)
    }

    @Test("a driver cancels, then rides pair seats the passengers in another car: each is told of the cancellation and of the new driver, once; rides pair --no-notify records its messages as suppressed")
    func cancelledThenPairedAgain() throws {
        let database = try RideShare.database([RideShare.Car(direction: "to", seats: 3), RideShare.Car(direction: "to", seats: 2)], riders: ["to", "to"])
        try RideShare.pair([(driver: 1, rider: 1, leg: "to"), (driver: 1, rider: 2, leg: "to")], in: database)
        #expect(try notify(database, ["--no-digest"]).stderr.contains("sent 4,"))

        let cancel = try database.run(["rides", "cancel", "--offer", String(try id("ride_offers", "d1@example.org", in: database))])
        #expect(cancel.stdout.contains("; 2 messages queued"), "\(cancel.stdout)")
        let paired = try database.run(["rides", "pair", "--event", "retreat"])
        #expect(paired.status == 0, "\(paired.stderr)")
        #expect(paired.stdout.contains("2 pairings made"), "\(paired.stdout)")
        #expect(try count("ride-cancelled", "pending", in: database) == 2)
        #expect(try count("ride-paired", "pending", in: database) == 4)
        #expect(try count("ride-full", "pending", in: database) == 1)
        let sent = try notify(database, ["--no-digest"])
        #expect(sent.stderr.contains("sent 7,"), "\(sent.stderr)")
        #expect(try notify(database, ["--now"]).stderr.contains("sent 0,"))

        let mails = try mails(database)
        for rider in ["p1@example.edu", "p2@example.edu"] {
            let theirs = mails.filter { $0.to == [rider] }
            #expect(theirs.map(\.subject).sorted() == [
                "Your ride to Fall Retreat is cancelled", "Your ride to Fall Retreat: Dana1 Driver",
                "Your ride to Fall Retreat: Dana2 Driver",
            ], "\(rider)")
            #expect(theirs.first { $0.subject.hasSuffix("Dana2 Driver") }?.replyTo == ["d2@example.org"])
        }
        #expect(mails.filter { $0.to == ["d2@example.org"] }.map(\.subject).sorted()
                == ["Pat1 Rider rides with you to Fall Retreat", "Pat2 Rider rides with you to Fall Retreat",
                    "Your car to Fall Retreat is full"])

        // Cancelled again and paired again without telling anyone.
        let offer = try id("ride_offers", "d2@example.org", in: database)
        #expect(try database.run(["rides", "cancel", "--offer", String(offer), "--quiet"]).status == 0)
        try database.connect().execute("""
            update ride_offers set status = 'open' where driver_id = (select id from people where email = 'd1@example.org')
            """)
        let quiet = try database.run(["rides", "pair", "--event", "retreat", "--no-notify"])
        #expect(quiet.status == 0, "\(quiet.stderr)")
        #expect(try count("ride-paired", "suppressed", in: database) == 4)
        #expect(try notify(database, ["--no-digest"]).stderr.contains("sent 2,"), "the cancellation's two only")
    }
}
