import BSONDocuments
import Foundation

/// One kind's rows made from the old app's documents, in the kind's CSV format, with the document
/// each row was made from, so the import's diagnostics can name it.
struct KeystoneTable {
    let kind: Kind
    let header: [String]
    /// The Keystone field each column is made from (`day` from `dayOfWeek`), for diagnostics.
    let fields: [String: String]
    private(set) var rows: [[String]] = []
    /// The collection and `_id` of each row's document.
    private(set) var origins: [(collection: String, id: String)] = []
    /// The key each row gives its document in `legacy_ids` (nil: the row is no document's own).
    private(set) var keys: [String?] = []

    init(kind: Kind, fields: [String: String] = [:]) {
        self.kind = kind
        header = kind.columnNames
        self.fields = fields
    }

    /// Adds a row of `cells` by column name (a column left out is blank).
    mutating func append(_ cells: [String: String], collection: String, id: String, key: String?) {
        rows.append(header.map { cells[$0] ?? "" })
        origins.append((collection, id))
        keys.append(key)
    }
}

/// Maps the old Keystone app's collections to crubatch's kinds, as rows of each kind's CSV format:
///
/// - codes are the documents' Keystone slugs, else their names made codes, unique within the dump
///   (`-2`, `-3` in `_id` order); a code recorded in `legacy_ids` by an earlier migration is kept;
/// - ObjectIds become the keys of what they name (codes, emails); one that names nothing is left
///   in the cell, so the import reports it as an unknown reference;
/// - Keystone's words that crubatch does not spell the same way are translated (`Other` gender,
///   `Mixed Sexes`, the `MTL` staff role); every other word goes through as written, so an unknown
///   one is the import's `invalid-choice`;
/// - users who lead a group or a team, or are staff or marked as leaders, are leaders; the rest
///   students. Memberships come from `User.communityGroups`, joined when the user was created (the
///   old app kept no join date). Passwords, device tokens and notification settings are not read;
/// - rides are ride offers and passengers ride requests: the old app knew drivers and passengers
///   by name and phone only, so each is the user with that phone. A ride's passengers are its
///   pairings, on the legs both go; a ride both ways leaves the event when the event ends.
struct KeystoneTables {
    /// A ride's passenger seated on one leg, by the keys the import gives them.
    struct Pairing {
        let event: String
        let driver: String
        let passenger: String
        let leg: String
    }

    private let dump: KeystoneDump
    /// Keys earlier migrations gave documents: collection -> ObjectId -> key.
    private let stored: [String: [String: String]]
    /// Codes given so far: collection -> ObjectId -> code.
    private var codes: [String: [String: String]] = [:]
    private var emails: [String: String] = [:]
    /// The pairings the rides list.
    private(set) var pairings: [Pairing] = []
    /// Warnings about references inside lists that name nothing (left out of the list).
    private(set) var warnings: [(collection: String, id: String, field: String, message: String)] = []

    init(dump: KeystoneDump, stored: [String: [String: String]]) {
        self.dump = dump
        self.stored = stored
    }

    /// Every kind's table, in dependency order; kinds without documents are left out.
    mutating func tables() -> [KeystoneTable] {
        for collection in ["campuses", "ministries", "ministryteams", "communitygroups", "events", "summermissions"] {
            assignCodes(collection)
        }
        for user in dump["users"] {
            if let id = user.id, let email = user["email"]?.text, !email.isEmpty { emails[id] = email }
        }
        let people = self.people()
        let rides = self.rides()
        return [campuses(), ministries(), people.leaders, people.students, teams(), groups(), people.memberships,
                events(), missions(), resources(), rides.offers, rides.requests].filter { !$0.rows.isEmpty }
    }

    // MARK: Codes

    /// Gives each document of `collection` its code: the stored one, else its slug or name made a
    /// code, unique in the collection.
    private mutating func assignCodes(_ collection: String) {
        var given: [String: String] = [:]
        var taken = Set(stored[collection]?.values.map { $0 } ?? [])
        for document in dump[collection] {
            guard let id = document.id else { continue }
            if let code = stored[collection]?[id] {
                given[id] = code
                continue
            }
            let base = [document["slug"]?.text, document["name"]?.text, document["title"]?.text]
                .compactMap { $0.map { CodeRule.slug($0.folding(options: .diacriticInsensitive, locale: nil), length: CodeRule.maximumLength - 4) } }
                .first { !$0.isEmpty } ?? id
            var code = base
            var number = 2
            while taken.contains(code) {
                code = "\(base)-\(number)"
                number += 1
            }
            taken.insert(code)
            given[id] = code
        }
        codes[collection] = given
    }

    /// The code of the document `value` names in `collection`, else the ObjectId itself (which the
    /// import reports as a reference to nothing).
    private func code(_ value: BSONValue?, in collection: String) -> String {
        guard let id = value?.text else { return "" }
        return codes[collection]?[id] ?? id
    }

    /// The codes of a list of references; those that name nothing are left out with a warning.
    private mutating func codes(_ value: BSONValue?, in collection: String, of document: BSONDocument, from source: String,
                                field: String) -> String {
        let known = codes[collection] ?? [:]
        return list(value, of: document, from: source, field: field, naming: collection) { known[$0] }
    }

    /// The emails of a list of users.
    private mutating func emails(_ value: BSONValue?, of document: BSONDocument, from source: String, field: String) -> String {
        let known = emails
        return list(value, of: document, from: source, field: field, naming: "users") { known[$0] }
    }

    private mutating func list(_ value: BSONValue?, of document: BSONDocument, from source: String, field: String,
                               naming target: String, key: (String) -> String?) -> String {
        var keys: [String] = []
        for element in value?.elements ?? [] {
            guard let id = element.text else { continue }
            if let found = key(id) {
                keys.append(found)
            } else if dump[target].contains(where: { $0.id == id }) {
                continue  // a user without email: their own document reports it
            } else {
                warnings.append((source, document.id ?? "", field, "\(target) \(id) does not exist; left out of \(field)"))
            }
        }
        return keys.joined(separator: ";")
    }

    // MARK: Kinds

    private func campuses() -> KeystoneTable {
        var table = KeystoneTable(kind: .campuses, fields: ["city": "location.suburb", "state": "location.state",
                                                            "country": "location.country"])
        for campus in dump["campuses"] {
            guard let id = campus.id else { continue }
            let location = campus["location"]?.document
            let code = codes["campuses"]?[id] ?? id
            table.append(["code": code, "name": campus["name"]?.text ?? "", "city": location?["suburb"]?.text ?? "",
                          "state": location?["state"]?.text ?? "", "country": Self.country(location?["country"]?.text),
                          "url": campus["url"]?.text ?? ""], collection: "campuses", id: id, key: code)
        }
        return table
    }

    private func ministries() -> KeystoneTable {
        var table = KeystoneTable(kind: .ministries)
        for ministry in dump["ministries"] {
            guard let id = ministry.id else { continue }
            let code = codes["ministries"]?[id] ?? id
            table.append(["code": code, "name": ministry["name"]?.text ?? "", "campus": self.code(ministry["campus"], in: "campuses"),
                          "description": ministry["description"]?.text ?? ""], collection: "ministries", id: id, key: code)
        }
        return table
    }

    private mutating func teams() -> KeystoneTable {
        var table = KeystoneTable(kind: .teams, fields: ["ministry": "parentMinistry"])
        for team in dump["ministryteams"] {
            guard let id = team.id else { continue }
            let code = codes["ministryteams"]?[id] ?? id
            table.append(["code": code, "ministry": self.code(team["parentMinistry"], in: "ministries"),
                          "name": team["name"]?.text ?? "", "description": team["description"]?.text ?? "",
                          "leaders": emails(team["leaders"], of: team, from: "ministryteams", field: "leaders")],
                         collection: "ministryteams", id: id, key: code)
        }
        return table
    }

    private mutating func groups() -> KeystoneTable {
        var table = KeystoneTable(kind: .groups, fields: ["day": "dayOfWeek", "time": "meetingTime", "audience": "type",
                                                          "sex": "gender"])
        for group in dump["communitygroups"] {
            guard let id = group.id else { continue }
            let code = codes["communitygroups"]?[id] ?? id
            let type = group["type"]?.text ?? ""
            let gender = group["gender"]?.text ?? ""
            table.append(["code": code, "ministry": self.code(group["ministry"], in: "ministries"), "name": group["name"]?.text ?? "",
                          "day": group["dayOfWeek"]?.text ?? "", "time": group["meetingTime"]?.text ?? "",
                          "audience": type == "Mixed Sexes" ? "mixed" : type,
                          "sex": gender == "Other" || (gender.isEmpty && type == "Mixed Sexes") ? "mixed" : gender,
                          "leaders": emails(group["leaders"], of: group, from: "communitygroups", field: "leaders"),
                          "description": group["description"]?.text ?? ""],
                         collection: "communitygroups", id: id, key: code)
        }
        return table
    }

    private mutating func people() -> (leaders: KeystoneTable, students: KeystoneTable, memberships: KeystoneTable) {
        let personFields = ["first_name": "name.first", "last_name": "name.last", "school_year": "schoolYear",
                            "staff_role": "staffRole"]
        var leaders = KeystoneTable(kind: .leaders, fields: personFields)
        var students = KeystoneTable(kind: .students, fields: personFields)
        var memberships = KeystoneTable(kind: .memberships, fields: ["group": "communityGroups"])
        let leading = Set((dump["communitygroups"] + dump["ministryteams"]).flatMap { ($0["leaders"]?.elements ?? []).compactMap(\.text) })
        // Each group's and team's ministry, and each ministry's campus, to place people.
        let ministryOf = Dictionary((dump["communitygroups"] + dump["ministryteams"]).compactMap { document in
            document.id.map { ($0, (document["ministry"] ?? document["parentMinistry"])?.text ?? "") }
        }) { first, _ in first }
        let campusOf = Dictionary(dump["ministries"].compactMap { ministry in
            ministry.id.map { ($0, code(ministry["campus"], in: "campuses")) }
        }) { first, _ in first }
        for user in dump["users"] {
            guard let id = user.id else { continue }
            let email = user["email"]?.text ?? ""
            let name = user["name"]?.document
            let groups = (user["communityGroups"]?.elements ?? []).compactMap(\.text)
            let teams = (user["ministryTeams"]?.elements ?? []).compactMap(\.text)
            let ministries = (groups + teams).compactMap { ministryOf[$0] }.reduce(into: [String]()) { list, ministry in
                if !list.contains(ministry) { list.append(ministry) }
            }
            let isLeader = leading.contains(id) || user["isCommunityGroupLeader"]?.bool == true || user["isStaff"]?.bool == true
            var cells = ["email": email, "first_name": name?["first"]?.text ?? "", "last_name": name?["last"]?.text ?? "",
                         "phone": user["phone"]?.text ?? "", "sex": user["sex"]?.text ?? "",
                         "campus": ministries.first.flatMap { campusOf[$0] } ?? ""]
            if isLeader {
                let role = user["staffRole"]?.text
                cells["staff_role"] = role == "MTL" ? "student" : role ?? "student"
                leaders.append(cells, collection: "users", id: id, key: email)
            } else {
                cells["school_year"] = user["schoolYear"]?.text ?? ""
                cells["ministries"] = ministries.map { code(.objectID($0), in: "ministries") }.joined(separator: ";")
                students.append(cells, collection: "users", id: id, key: email)
            }
            guard !email.isEmpty else { continue }
            let joined = Self.isoTime(milliseconds: Int64(UInt32(id.prefix(8), radix: 16) ?? 0) * 1000)
            for group in groups {
                memberships.append(["group": code(.objectID(group), in: "communitygroups"), "email": email,
                                    "joined_at": joined, "status": "active"], collection: "users", id: id, key: nil)
            }
        }
        return (leaders, students, memberships)
    }

    private mutating func events() -> KeystoneTable {
        var table = KeystoneTable(kind: .events, fields: ["starts_at": "startDate", "ends_at": "endDate",
                                                          "rideshare": "rideSharing"])
        for event in dump["events"] {
            guard let id = event.id else { continue }
            let code = codes["events"]?[id] ?? id
            table.append(["code": code, "name": event["name"]?.text ?? "", "starts_at": event["startDate"]?.text ?? "",
                          "ends_at": event["endDate"]?.text ?? "",
                          "location": event["locationTBD"]?.bool == true ? "" : Self.place(event["location"]?.document),
                          "ministries": codes(event["ministries"], in: "ministries", of: event, from: "events", field: "ministries"),
                          "rideshare": event["rideSharing"]?.text ?? "", "url": event["url"]?.text ?? "",
                          "description": event["description"]?.text ?? ""],
                         collection: "events", id: id, key: code)
        }
        return table
    }

    private func missions() -> KeystoneTable {
        var table = KeystoneTable(kind: .missions, fields: ["starts_on": "startDate", "ends_on": "endDate"])
        for mission in dump["summermissions"] {
            guard let id = mission.id else { continue }
            let code = codes["summermissions"]?[id] ?? id
            table.append(["code": code, "name": mission["name"]?.text ?? "",
                          "starts_on": String((mission["startDate"]?.text ?? "").prefix(10)),
                          "ends_on": String((mission["endDate"]?.text ?? "").prefix(10)),
                          "location": Self.place(mission["location"]?.document), "cost": mission["cost"]?.text ?? "",
                          "leaders": mission["leaders"]?.text ?? "", "url": mission["url"]?.text ?? "",
                          "description": mission["description"]?.text ?? ""],
                         collection: "summermissions", id: id, key: code)
        }
        return table
    }

    private mutating func resources() -> KeystoneTable {
        var table = KeystoneTable(kind: .resources, fields: ["topics": "tags", "leaders_only": "restricted",
                                                             "published_on": "date"])
        let tags = Dictionary(dump["resourcetags"].compactMap { tag in
            tag.id.map { ($0, (tag["title"] ?? tag["name"])?.text ?? "") }
        }) { first, _ in first }
        for resource in dump["resources"] {
            guard let id = resource.id else { continue }
            let url = resource["url"]?.text ?? ""
            table.append(["url": url, "title": resource["title"]?.text ?? "", "type": resource["type"]?.text ?? "",
                          "author": resource["author"]?.text ?? "",
                          "published_on": String((resource["date"]?.text ?? "").prefix(10)),
                          "topics": list(resource["tags"], of: resource, from: "resources", field: "tags", naming: "resourcetags") { tags[$0] },
                          "leaders_only": resource["restricted"]?.text ?? "", "description": resource["description"]?.text ?? ""],
                         collection: "resources", id: id, key: url)
        }
        return table
    }

    private mutating func rides() -> (offers: KeystoneTable, requests: KeystoneTable) {
        let pickup = ["pickup_location": "location", "latitude": "location.geo", "longitude": "location.geo",
                      "postal_code": "location.postcode"]
        var offers = KeystoneTable(kind: .rideOffers, fields: pickup.merging(["email": "driverNumber", "departs_to": "time",
                                                                              "departs_from": "time"]) { $1 })
        var requests = KeystoneTable(kind: .rideRequests, fields: pickup.merging(["email": "phone", "first_name": "name",
                                                                                  "last_name": "name"]) { $1 })
        var byPhone: [String: String] = [:]
        for user in dump["users"] {
            if let id = user.id, let email = emails[id], let phone = Self.phoneKey(user["phone"]?.text) { byPhone[phone] = email }
        }
        let ends = Dictionary(dump["events"].compactMap { event in event.id.map { ($0, event["endDate"]?.text ?? "") } }) { first, _ in first }
        var passengers: [String: (email: String, direction: String)] = [:]
        for passenger in dump["passengers"] {
            guard let id = passenger.id else { continue }
            let event = code(passenger["event"], in: "events")
            let email = Self.phoneKey(passenger["phone"]?.text).flatMap { byPhone[$0] } ?? ""
            let direction = passenger["direction"]?.text ?? ""
            passengers[id] = (email, direction)
            let name = (passenger["name"]?.text ?? "").split(separator: " ", maxSplits: 1).map(String.init)
            var cells = Self.pickup(passenger["location"]?.document)
            cells.merge(["event": event, "email": email, "first_name": name.first ?? "", "last_name": name.dropFirst().first ?? "",
                         "phone": passenger["phone"]?.text ?? "", "direction": direction]) { $1 }
            requests.append(cells, collection: "passengers", id: id, key: email.isEmpty ? nil : "\(event)/\(email)")
        }
        for ride in dump["rides"] {
            guard let id = ride.id else { continue }
            let event = code(ride["event"], in: "events")
            let email = Self.phoneKey(ride["driverNumber"]?.text).flatMap { byPhone[$0] } ?? ""
            let direction = ride["direction"]?.text ?? ""
            let time = ride["time"]?.text ?? ""
            var cells = Self.pickup(ride["location"]?.document)
            cells.merge(["event": event, "email": email, "direction": direction, "seats": ride["seats"]?.text ?? "",
                         "departs_to": direction == "from" ? "" : time,
                         "departs_from": direction == "from" ? time : direction == "both" ? ride["event"]?.text.flatMap { ends[$0] } ?? "" : ""]) { $1 }
            offers.append(cells, collection: "rides", id: id, key: email.isEmpty ? nil : "\(event)/\(email)")
            for passenger in (ride["passengers"]?.elements ?? []).compactMap(\.text) {
                guard let (rider, ways) = passengers[passenger], !rider.isEmpty, !email.isEmpty else { continue }
                for leg in ["to", "from"] where [direction, ways].allSatisfy({ $0 == leg || $0 == "both" }) {
                    pairings.append(Pairing(event: event, driver: email, passenger: rider, leg: leg))
                }
            }
        }
        return (offers, requests)
    }

    // MARK: Values

    /// A ride's pickup from its `Types.Location`: the place, its coordinates (`geo` is longitude,
    /// latitude) and postcode.
    private static func pickup(_ location: BSONDocument?) -> [String: String] {
        let geo = location?["geo"]?.elements?.compactMap(\.text) ?? []
        return ["pickup_location": place(location), "longitude": geo.count == 2 ? geo[0] : "",
                "latitude": geo.count == 2 ? geo[1] : "", "postal_code": location?["postcode"]?.text ?? ""]
    }

    /// The last ten digits of a phone, which find the user a ride names by phone.
    private static func phoneKey(_ phone: String?) -> String? {
        let digits = (phone ?? "").filter(\.isASCII).filter(\.isNumber)
        return digits.count >= 10 ? String(digits.suffix(10)) : nil
    }

    /// A `Types.Location` as one line: street, city, state and postcode.
    static func place(_ location: BSONDocument?) -> String {
        guard let location else { return "" }
        let state = [location["state"]?.text, location["postcode"]?.text].compactMap { $0 }.filter { !$0.isEmpty }
        return ([location["street1"]?.text, location["suburb"]?.text].compactMap { $0 } + [state.joined(separator: " ")])
            .filter { !$0.isEmpty }.joined(separator: ", ")
    }

    /// Keystone's default country is `USA`.
    private static func country(_ text: String?) -> String {
        switch text?.uppercased() {
        case nil, "": ""
        case "USA", "US", "UNITED STATES", "UNITED STATES OF AMERICA": "US"
        default: text ?? ""
        }
    }

    /// An instant as ISO 8601 in UTC, to the second.
    static func isoTime(milliseconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds / 1000)))
    }
}

extension BSONValue {
    /// The value as a cell's text: strings as they are, ObjectIds as hex, numbers in decimal, booleans
    /// as yes/no, dates as ISO 8601 in UTC; nil for documents, arrays and null.
    var text: String? {
        switch self {
        case .string(let text): text
        case .objectID(let hex): hex
        case .int(let number): String(number)
        case .double(let number): number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        case .decimal(let text): text
        case .bool(let value): value ? "yes" : "no"
        case .date(let milliseconds): KeystoneTables.isoTime(milliseconds: milliseconds)
        default: nil
        }
    }

    var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    var document: BSONDocument? {
        if case .document(let document) = self { return document }
        return nil
    }

    var elements: [BSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }
}
