import BSONDocuments
import CSVStream
import Foundation

/// One kind's rows made from the old app's documents, in the kind's CSV format, with the document
/// each row was made from, so the import's diagnostics can name it.
struct KeystoneTable {
    let kind: Kind
    let header: [String]
    /// The Keystone field each column is made from (`day` from `dayOfWeek`), for diagnostics.
    let fields: [String: String]
    private(set) var rows: [[String]] = []
    /// The document each row was made from.
    private(set) var origins: [KeystoneDocument] = []
    /// The key each row gives its document in `legacy_ids` (nil: none, or the row is not the
    /// document's own).
    private(set) var keys: [String?] = []
    /// Whether each row is its document's own (a user's person row), not one more (a membership).
    private(set) var owned: [Bool] = []

    init(kind: Kind, fields: [String: String] = [:]) {
        self.kind = kind
        header = kind.columnNames
        self.fields = fields
    }

    /// Adds a row of `cells` by column name (a column left out is blank).
    mutating func append(_ cells: [String: String], from document: KeystoneDocument, key: String?, owned: Bool = true) {
        rows.append(header.map { cells[$0] ?? "" })
        origins.append(document)
        keys.append(key)
        self.owned.append(owned)
    }
}

/// What the mapping says of documents beyond their rows: those it refuses, those it leaves out on
/// purpose, and warnings about their fields.
struct KeystoneFindings {
    /// A document the mapping cannot make a row of: an error at its field. `table` and `key` are
    /// the row it would have made, so rows naming it are told it was refused above.
    struct Refusal {
        let document: KeystoneDocument
        let field: String
        /// A short name of the reason, by which the reconciliation counts refusals.
        let reason: String
        let message: String
        let hint: String
        let table: String?
        let key: String?
    }

    /// Something left out of a row or assumed, at a document's field.
    struct Warning {
        let document: KeystoneDocument
        let field: String
        /// `unknown-reference` for an id left out of a list, `assumed-value` for a value set aside.
        let code: DiagnosticCode
        let message: String
    }

    /// A document deliberately not migrated, and why.
    struct Omission {
        let document: KeystoneDocument
        let reason: String
    }

    var refusals: [Refusal] = []
    var warnings: [Warning] = []
    var omissions: [Omission] = []
    /// Documents migrated into other documents' rows rather than rows of their own (a resource
    /// tag, a topic of the resources it tags).
    var absorbed: [KeystoneDocument] = []
    /// The documents refused, by collection and `_id`.
    var refusedIDs: [String: Set<String>] = [:]

    mutating func refuse(_ document: KeystoneDocument, field: String, reason: String, _ message: String, hint: String,
                         table: String? = nil, key: String? = nil) {
        refusals.append(Refusal(document: document, field: field, reason: reason, message: message, hint: hint, table: table, key: key))
        refusedIDs[document.collection, default: []].insert(document.id ?? "")
    }

    mutating func warn(_ document: KeystoneDocument, field: String, code: DiagnosticCode = .unknownReference, _ message: String) {
        warnings.append(Warning(document: document, field: field, code: code, message: message))
    }

    func isRefused(_ document: KeystoneDocument) -> Bool {
        refusedIDs[document.collection]?.contains(document.id ?? "") ?? false
    }
}

/// Maps the old Keystone app's collections to crubatch's kinds, as rows of each kind's CSV format,
/// following every shape its documents were saved in (docs/keystone-history.md):
///
/// - codes are the documents' Keystone slugs, else their names made codes, unique within the dump
///   (`-2`, `-3` in `_id` order); a community group's slug is made of its leaders' ids, so its
///   code is made of its ministry, name and day, and the slug is kept as a legacy id; a code
///   recorded in `legacy_ids` by an earlier migration is kept;
/// - ObjectIds become the keys of what they name (codes, emails); one that names nothing is left
///   in the cell, so the import reports it as an unknown reference;
/// - older shapes read as what they meant: a ministry's `campuses`, an event's `parentMinistries`
///   or `parentMinistry`, a group's `parentMinistry`, a meeting time saved as a date, staff saved
///   before `staffRole` existed; what cannot be read without a guess is refused with its reason;
/// - users who lead a group or a team, are staff or are marked as leaders are leaders; the rest
///   students. Memberships come from `User.communityGroups`, joined when the user was created;
/// - rides are ride offers and passengers ride requests: the old app knew drivers and passengers
///   by name and phone only, so each is the user with that phone, and with that name too when
///   several users share it. A ride's passengers are its pairings, on the legs both go.
struct KeystoneTables {
    /// A passenger on one way to or from an event.
    private struct PassengerLeg: Hashable {
        let passenger: String
        let leg: String
    }

    /// A ride's passenger seated on one leg, by the keys the import gives them.
    struct Pairing {
        let event: String
        let driver: String
        let passenger: String
        let leg: String
    }

    /// The zone the old app's people lived in (it served Cru Central Coast, California): a time of
    /// day it stored as a date is read there.
    static let zone = TimeZone(identifier: "America/Los_Angeles")!

    private let dump: KeystoneDump
    /// Keys earlier migrations gave documents: collection -> ObjectId -> key.
    private let stored: [String: [String: String]]
    /// Codes given so far: collection -> ObjectId -> code.
    private var codes: [String: [String: String]] = [:]
    /// The email of each user who gets a row: ObjectId -> email.
    private var emails: [String: String] = [:]
    private(set) var findings = KeystoneFindings()
    /// The pairings the rides list.
    private(set) var pairings: [Pairing] = []
    /// Each migrated ministry's campus code, by the ministry's ObjectId.
    private var ministryCampus: [String: String] = [:]
    /// Other names a document had in the old app, kept as legacy ids: a group's slug.
    private(set) var formerNames: [(collection: String, name: String, kind: Kind, key: String)] = []

    init(dump: KeystoneDump, stored: [String: [String: String]]) {
        self.dump = dump
        self.stored = stored
    }

    /// Every kind's table, in dependency order; kinds without documents are left out.
    mutating func tables() -> [KeystoneTable] {
        for collection in ["campuses", "ministries", "ministryteams", "events", "summermissions"] {
            assignCodes(collection)
        }
        let ministries = self.ministries()
        let groupFields = dump["communitygroups"].map { group in (group, meeting(of: group), ministry(of: group)) }
        let ministryCodes = Set(codes["ministries"]?.values.map { $0 } ?? [])
        assignGroupCodes(groupFields.map { ($0.0, ministryCodes.contains($0.2) ? $0.2 : "", $0.1.day) })
        var users = KeystonePeople(dump: dump, findings: findings)
        emails = users.decideEmails()
        findings = users.findings
        // Groups before people: a person's campus comes from the groups migrated.
        let groups = self.groups(groupFields)
        let teams = self.teams()
        let (leaders, students, memberships) = people(users)
        let rides = self.rides()
        return [campuses(), ministries, leaders, students, teams, groups, memberships,
                events(), missions(), resources(), rides.offers, rides.requests].filter { !$0.rows.isEmpty }
    }

    // MARK: Codes

    /// Gives each document of `collection` its code: the stored one, else its slug or name made a
    /// code, unique in the collection.
    private mutating func assignCodes(_ collection: String) {
        assign(collection, dump[collection].map { document in
            (document, [document["slug"]?.text, document["name"]?.text, document["title"]?.text].compactMap { $0 })
        })
    }

    /// Gives each group its code from its ministry, name and day (`cru-cal-poly-freshmen-men-tue`);
    /// its Keystone slug, made of its leaders' ids, is kept as a former name.
    private mutating func assignGroupCodes(_ groups: [(KeystoneDocument, ministry: String, day: String)]) {
        assign("communitygroups", groups.map { group, ministry, day in
            // The name's words that the ministry's code already says are said once (`destino-bible-study-tue`).
            let said = Set(ministry.split(separator: "-"))
            let name = CodeRule.slug((group["name"]?.text ?? "").folding(options: .diacriticInsensitive, locale: nil))
                .split(separator: "-").filter { !said.contains($0) }.joined(separator: "-")
            return (group, [[ministry, name, String(day.prefix(3))].filter { !$0.isEmpty }.joined(separator: " ")])
        })
        for (group, _, _) in groups {
            if let id = group.id, let slug = group["slug"]?.text, !slug.isEmpty, let code = codes["communitygroups"]?[id] {
                formerNames.append(("communitygroups.slug", slug, .groups, code))
            }
        }
    }

    /// Gives each document the stored code, else the first of its `names` made a code, unique.
    private mutating func assign(_ collection: String, _ documents: [(KeystoneDocument, names: [String])]) {
        var given: [String: String] = [:]
        var taken = Set(stored[collection]?.values.map { $0 } ?? [])
        for (document, names) in documents {
            guard let id = document.id else { continue }
            if let code = stored[collection]?[id] {
                given[id] = code
                continue
            }
            let base = names.map { CodeRule.slug($0.folding(options: .diacriticInsensitive, locale: nil), length: CodeRule.maximumLength - 4) }
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
    /// import reports as a reference to nothing, or as refused above).
    func code(_ value: BSONValue?, in collection: String) -> String {
        guard let id = value?.text else { return "" }
        return codes[collection]?[id] ?? id
    }

    /// The keys of a list of references, through `key`; an id that names no document is left out
    /// with a warning (a refused document's key stays, for the import to say it was refused).
    private mutating func list(_ field: String, of document: KeystoneDocument, naming target: String,
                               key: (String) -> String?) -> String {
        var keys: [String] = []
        for element in document[field]?.elements ?? [] {
            guard let id = element.text else { continue }
            if let found = key(id) {
                keys.append(found)
            } else if let named = dump[target].first(where: { $0.id == id }) {
                findings.warn(document, field: field, "\(named.name) is not migrated (\(findings.isRefused(named) ? "refused" : "it has no key")); left out of \(field)")
            } else {
                findings.warn(document, field: field, "\(target) \(id) does not exist; left out of \(field)")
            }
        }
        return keys.joined(separator: ";")
    }

    /// The codes of a list of references to `collection`.
    private mutating func codes(_ field: String, of document: KeystoneDocument, in collection: String) -> String {
        let known = codes[collection] ?? [:]
        return list(field, of: document, naming: collection) { known[$0] }
    }

    /// The emails of a list of users.
    private mutating func emails(_ field: String, of document: KeystoneDocument) -> String {
        let known = emails
        return list(field, of: document, naming: "users") { known[$0] }
    }

    // MARK: Kinds

    private func campuses() -> KeystoneTable {
        var table = KeystoneTable(kind: .campuses, fields: ["city": "location.suburb", "state": "location.state",
                                                            "country": "location.country"])
        for campus in dump["campuses"] {
            guard let id = campus.id else { continue }
            let code = codes["campuses"]?[id] ?? id
            table.append(["code": code, "name": campus["name"]?.text ?? "", "city": campus["location.suburb"]?.text ?? "",
                          "state": campus["location.state"]?.text ?? "",
                          "country": Self.country(campus["location.country"]?.text) ?? "",
                          "url": campus["url"]?.text ?? ""], from: campus, key: code)
        }
        return table
    }

    /// Ministries; one saved before 2016-04 names its campus in `campuses`, a list: its one campus
    /// is its campus, and several are refused (a ministry has one campus here).
    private mutating func ministries() -> KeystoneTable {
        var table = KeystoneTable(kind: .ministries)
        for ministry in dump["ministries"] {
            guard let id = ministry.id else { continue }
            let code = codes["ministries"]?[id] ?? id
            var campus = ministry.has("campus") ? self.code(ministry["campus"], in: "campuses") : ""
            if ministry.fields["campus"] == .null, ministry["campuses"]?.elements?.isEmpty == false {
                findings.refuse(ministry, field: "campus", reason: "campus cleared, campuses not",
                                "campus was cleared in the old app, but campuses, from before it, names one: whether the ministry has a campus is not known",
                                hint: "load the ministry from ministries.csv with its campus, or leave it out with --on-error skip",
                                table: KindSpec.of(.ministries).table, key: code)
                continue
            }
            if !ministry.has("campus") {
                var listed: [String] = []
                for element in ministry["campuses"]?.elements ?? [] {
                    let code = self.code(element, in: "campuses")
                    if !code.isEmpty && !listed.contains(code) { listed.append(code) }
                }
                guard listed.count <= 1 else {
                    findings.refuse(ministry, field: "campuses", reason: "several campuses",
                                    "campuses lists \(listed.count) campuses (\(listed.joined(separator: ", "))), from before the old app gave a ministry one campus; a ministry here has one",
                                    hint: "migrate it, then load the ministry once per campus, or leave it out with --on-error skip",
                                    table: KindSpec.of(.ministries).table, key: code)
                    continue
                }
                campus = listed.first ?? ""
            }
            ministryCampus[id] = campus
            table.append(["code": code, "name": ministry["name"]?.text ?? "", "campus": campus,
                          "description": ministry["description"]?.text ?? ""], from: ministry, key: code)
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
                          "leaders": emails("leaders", of: team)], from: team, key: code)
        }
        return table
    }

    /// A group's ministry: `ministry`, or before 2016-04 `parentMinistry`.
    private func ministry(of group: KeystoneDocument) -> String {
        code(group[group.has("ministry") || !group.has("parentMinistry") ? "ministry" : "parentMinistry"], in: "ministries")
    }

    /// A group's meeting day and time of day, whatever shape its `meetingTime` was saved in: text
    /// or a choice (`7:30pm`) as written; a date (2016's Datetime, later "Ignore Date") read as
    /// the time of day it is in California, and for a group of before `dayOfWeek` existed, the day
    /// too. `problem`: why the time cannot be read, a date at midnight UTC being one stored
    /// without a time.
    private func meeting(of group: KeystoneDocument) -> (day: String, time: String, problem: String?) {
        let day = group["dayOfWeek"]?.text ?? ""
        guard case .date(let milliseconds) = group["meetingTime"] else { return (day, group["meetingTime"]?.text ?? "", nil) }
        if milliseconds % 86_400_000 == 0 {
            return (day, "", "meetingTime is a date at midnight UTC, which the old app stored when no time was chosen")
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = Self.zone
        let parts = calendar.dateComponents([.weekday, .hour, .minute], from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
        let weekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
        let time = String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
        return (day.isEmpty && !group.has("dayOfWeek") ? weekdays[(parts.weekday ?? 1) - 1] : day, time, nil)
    }

    private mutating func groups(_ groups: [(KeystoneDocument, (day: String, time: String, problem: String?), String)]) -> KeystoneTable {
        var table = KeystoneTable(kind: .groups, fields: ["day": "dayOfWeek", "time": "meetingTime", "audience": "type",
                                                          "sex": "gender", "ministry": "ministry"])
        for (group, meeting, ministry) in groups {
            guard let id = group.id else { continue }
            let code = codes["communitygroups"]?[id] ?? id
            if let problem = meeting.problem {
                findings.refuse(group, field: "meetingTime", reason: "midnight meeting time", problem, hint: "give the group its time in groups.csv after the migration, or leave it out with --on-error skip",
                                table: KindSpec.of(.groups).table, key: code)
                continue
            }
            let type = group["type"]?.text ?? group["communityGroupType"]?.text ?? ""
            let gender = group["gender"]?.text ?? ""
            if type == "Mixed Sexes" && (gender == "Male" || gender == "Female") {
                findings.refuse(group, field: "gender", reason: "gender against Mixed Sexes", "gender is \(gender) but type is Mixed Sexes: which is meant is not known",
                                hint: "leave it out with --on-error skip and load it from groups.csv",
                                table: KindSpec.of(.groups).table, key: code)
                continue
            }
            table.append(["code": code, "ministry": ministry, "name": group["name"]?.text ?? "",
                          "day": meeting.day, "time": meeting.time,
                          "audience": type == "Mixed Sexes" ? "" : type == "Mixed Ages" ? "mixed" : type,
                          "sex": gender == "Other" || (gender.isEmpty && type == "Mixed Sexes") ? "mixed" : gender,
                          "leaders": emails("leaders", of: group), "description": group["description"]?.text ?? ""],
                         from: group, key: code)
        }
        return table
    }

    /// Leaders, students and memberships, as `KeystonePeople` decided them.
    private mutating func people(_ people: KeystonePeople) -> (KeystoneTable, KeystoneTable, KeystoneTable) {
        let personFields = ["first_name": "name.first", "last_name": "name.last", "school_year": "schoolYear",
                            "staff_role": "staffRole"]
        var leaders = KeystoneTable(kind: .leaders, fields: personFields)
        var students = KeystoneTable(kind: .students, fields: personFields)
        var memberships = KeystoneTable(kind: .memberships, fields: ["group": "communityGroups"])
        let ministryOf = Dictionary((dump["communitygroups"] + dump["ministryteams"]).compactMap { document in
            document.id.map { ($0, (document["ministry"] ?? document["parentMinistry"])?.text ?? "") }
        }) { first, _ in first }
        // The groups and teams each user leads, which place a leader as belonging does.
        var led: [String: [String]] = [:]
        for document in dump["communitygroups"] + dump["ministryteams"] where !findings.isRefused(document) {
            for leader in (document["leaders"]?.elements ?? []).compactMap(\.text) { led[leader, default: []].append(document.id ?? "") }
        }
        for person in people.decided {
            let user = person.user
            guard let id = user.id else { continue }
            let groups = (user["communityGroups"]?.elements ?? []).compactMap(\.text)
            let teams = (user["ministryTeams"]?.elements ?? []).compactMap(\.text)
            let ministries = (groups + teams).compactMap { ministryOf[$0] }.reduce(into: [String]()) { list, ministry in
                if !ministry.isEmpty && !list.contains(ministry) { list.append(ministry) }
            }
            let placing = ministries + (led[id] ?? []).compactMap { ministryOf[$0] }.filter { !ministries.contains($0) }
            let campuses = placing.compactMap { ministryCampus[$0] }.filter { !$0.isEmpty }.reduce(into: [String]()) { list, campus in
                if !list.contains(campus) { list.append(campus) }
            }
            if campuses.count > 1 {
                findings.warn(user, field: "communityGroups", code: .assumedValue, "belongs to groups and teams on \(campuses.count) campuses (\(campuses.joined(separator: ", "))): campus left empty")
            }
            var cells = ["email": person.email, "first_name": user["name.first"]?.text ?? "", "last_name": user["name.last"]?.text ?? "",
                         "phone": person.phone, "sex": user["sex"]?.text ?? "", "campus": campuses.count == 1 ? campuses[0] : ""]
            if let role = person.staffRole {
                cells["staff_role"] = role
                leaders.append(cells, from: user, key: person.email)
            } else {
                cells["school_year"] = user["schoolYear"]?.text ?? ""
                cells["ministries"] = ministries.map { code(.objectID($0), in: "ministries") }.joined(separator: ";")
                students.append(cells, from: user, key: person.email)
            }
            guard !person.email.isEmpty else { continue }
            // No membership could be recorded before 2017-09-18: joined no earlier than the user came.
            let joined = Self.isoTime(milliseconds: Int64(UInt32(id.prefix(8), radix: 16) ?? 0) * 1000)
            for group in groups {
                guard dump["communitygroups"].contains(where: { $0.id == group }) else {
                    findings.warn(user, field: "communityGroups", "communitygroups \(group) does not exist; left out of communityGroups")
                    continue
                }
                memberships.append(["group": code(.objectID(group), in: "communitygroups"), "email": person.email,
                                    "joined_at": joined, "status": "active"], from: user, key: nil, owned: false)
            }
        }
        return (leaders, students, memberships)
    }

    /// Events; one saved before 2016-04 names its ministries in `parentMinistries` (or, for two
    /// days in 2015, `parentMinistry`), and its ride sharing in `rideSharingEnabled`.
    private mutating func events() -> KeystoneTable {
        var table = KeystoneTable(kind: .events, fields: ["starts_at": "startDate", "ends_at": "endDate",
                                                          "rideshare": "rideSharing", "ministries": "ministries"])
        for event in dump["events"] {
            guard let id = event.id else { continue }
            let code = codes["events"]?[id] ?? id
            let field = event.has("ministries") ? "ministries" : event.has("parentMinistries") ? "parentMinistries" : "parentMinistry"
            if field == "ministries", event["ministries"]?.elements?.isEmpty == true,
               event["parentMinistries"]?.elements?.isEmpty == false {
                findings.refuse(event, field: "ministries", reason: "ministries emptied",
                                "ministries is empty but parentMinistries, from before it, names some: which the event belongs to is not known",
                                hint: "give the event its ministries in events.csv after the migration, or leave it out with --on-error skip",
                                table: KindSpec.of(.events).table, key: code)
                continue
            }
            let ministries = field == "parentMinistry" ? self.code(event[field], in: "ministries") : codes(field, of: event, in: "ministries")
            let rideshare = event.has("rideSharing") || !event.has("rideSharingEnabled") ? "rideSharing" : "rideSharingEnabled"
            table.append(["code": code, "name": event["name"]?.text ?? "", "starts_at": event["startDate"]?.text ?? "",
                          "ends_at": event["endDate"]?.text ?? "",
                          "location": event["locationTBD"]?.bool == true ? "" : Self.place(event, "location"),
                          "ministries": ministries, "rideshare": event[rideshare]?.text ?? "", "url": event["url"]?.text ?? "",
                          "description": event["description"]?.text ?? ""], from: event, key: code)
        }
        return table
    }

    /// Summer missions; their leaders are names, or in November 2015 a list of users.
    private mutating func missions() -> KeystoneTable {
        var table = KeystoneTable(kind: .missions, fields: ["starts_on": "startDate", "ends_on": "endDate"])
        let names = Dictionary(dump["users"].compactMap { user in
            user.id.map { ($0, [user["name.first"]?.text, user["name.last"]?.text].compactMap { $0 }.joined(separator: " ")) }
        }) { first, _ in first }
        for mission in dump["summermissions"] {
            guard let id = mission.id else { continue }
            let code = codes["summermissions"]?[id] ?? id
            let leaders = mission["leaders"]?.elements != nil
                ? list("leaders", of: mission, naming: "users") { names[$0] }.replacingOccurrences(of: ";", with: ", ")
                : mission["leaders"]?.text ?? ""
            table.append(["code": code, "name": mission["name"]?.text ?? "",
                          "starts_on": String((mission["startDate"]?.text ?? "").prefix(10)),
                          "ends_on": String((mission["endDate"]?.text ?? "").prefix(10)),
                          "location": Self.place(mission, "location"), "cost": mission["cost"]?.text ?? "",
                          "leaders": leaders, "url": mission["url"]?.text ?? "",
                          "description": mission["description"]?.text ?? ""], from: mission, key: code)
        }
        return table
    }

    /// Resources, their topics the titles of their tags; tags are no rows of their own.
    private mutating func resources() -> KeystoneTable {
        var table = KeystoneTable(kind: .resources, fields: ["topics": "tags", "leaders_only": "restricted",
                                                             "published_on": "date"])
        let tags = Dictionary(dump["resourcetags"].compactMap { tag in
            tag.id.map { ($0, (tag["title"] ?? tag["name"])?.text ?? "") }
        }) { first, _ in first }
        // The admin UI edited both sides of the link apart: a tag's own list of resources counts too.
        var tagging: [String: [String]] = [:]
        for tag in dump["resourcetags"] {
            for resource in (tag["resources"]?.elements ?? []).compactMap(\.text) { tagging[resource, default: []].append(tag.id ?? "") }
        }
        var used: Set<String> = []
        for resource in dump["resources"] {
            guard let id = resource.id else { continue }
            let url = resource["url"]?.text ?? ""
            var topics = list("tags", of: resource, naming: "resourcetags") { tags[$0] }.split(separator: ";").map(String.init)
            for tag in (resource["tags"]?.elements ?? []).compactMap(\.text) + (tagging[id] ?? []) { used.insert(tag) }
            for title in (tagging[id] ?? []).compactMap({ tags[$0] }) where !topics.contains(title) { topics.append(title) }
            table.append(["url": url, "title": resource["title"]?.text ?? "", "type": resource["type"]?.text ?? "",
                          "author": resource["author"]?.text ?? "",
                          "published_on": String((resource["date"]?.text ?? "").prefix(10)),
                          "topics": topics.joined(separator: ";"),
                          "leaders_only": resource["restricted"]?.text ?? "", "description": resource["description"]?.text ?? ""],
                         from: resource, key: url)
        }
        for tag in dump["resourcetags"] {
            if used.contains(tag.id ?? "") {
                findings.absorbed.append(tag)
            } else {
                findings.omissions.append(.init(document: tag, reason: "a tag no resource has: topics live on resources"))
            }
        }
        return table
    }

    /// Ride offers and requests, their people found by phone (`KeystonePhones`), and the pairings
    /// the rides list.
    private mutating func rides() -> (offers: KeystoneTable, requests: KeystoneTable) {
        let pickup = ["pickup_location": "location", "latitude": "location.geo", "longitude": "location.geo",
                      "postal_code": "location.postcode"]
        var offers = KeystoneTable(kind: .rideOffers, fields: pickup.merging(["email": "driverNumber", "departs_to": "time",
                                                                              "departs_from": "time"]) { $1 })
        var requests = KeystoneTable(kind: .rideRequests, fields: pickup.merging(["email": "phone", "first_name": "name",
                                                                                  "last_name": "name"]) { $1 })
        let phones = KeystonePhones(users: dump["users"], emails: emails, refused: findings)
        let ends = Dictionary(dump["events"].compactMap { event in event.id.map { ($0, event["endDate"]?.text ?? "") } }) { first, _ in first }
        let listed = Set(dump["rides"].flatMap { ($0["passengers"]?.elements ?? []).compactMap(\.text) })
        var passengers: [String: (email: String, direction: String)] = [:]
        var seats: [PassengerLeg: [(KeystoneDocument, Pairing)]] = [:]
        for passenger in dump["passengers"] {
            guard let id = passenger.id else { continue }
            let event = code(passenger["event"], in: "events")
            let name = passenger["name"]?.text ?? ""
            let direction = passenger["direction"]?.text ?? ""
            if passenger["has_driver"]?.bool == true && !listed.contains(id) {
                findings.refuse(passenger, field: "has_driver", reason: "seated without a ride",
                                "the old app had seated this passenger (has_driver), but no ride lists them: which car is not known",
                                hint: "seat them with rides pair after the migration, or leave them out with --on-error skip")
                continue
            }
            let match = phones.user(phone: passenger["phone"]?.text, name: name)
            if case .refused(let message, _) = match {
                findings.refuse(passenger, field: "phone", reason: match.reason, message, hint: "leave the passenger out with --on-error skip")
                continue
            }
            let email = match.email ?? ""
            passengers[id] = (email, direction)
            let words = name.split(separator: " ", maxSplits: 1).map(String.init)
            var cells = Self.pickup(passenger)
            cells.merge(["event": event, "email": email, "first_name": words.first ?? "", "last_name": words.dropFirst().first ?? "",
                         "phone": passenger["phone"]?.text ?? "", "direction": direction]) { $1 }
            requests.append(cells, from: passenger, key: email.isEmpty ? nil : "\(event)/\(email)")
        }
        for ride in dump["rides"] {
            guard ride.id != nil else { continue }
            let event = code(ride["event"], in: "events")
            let match = phones.user(phone: ride["driverNumber"]?.text, name: ride["driverName"]?.text ?? "")
            if case .refused(let message, _) = match {
                findings.refuse(ride, field: "driverNumber", reason: match.reason, message, hint: "leave the ride out with --on-error skip")
                continue
            }
            let email = match.email ?? ""
            let direction = ride["direction"]?.text ?? ""
            let time = ride["time"]?.text ?? ""
            var cells = Self.pickup(ride)
            cells.merge(["event": event, "email": email, "direction": direction, "seats": ride["seats"]?.text ?? "",
                         "departs_to": direction == "from" ? "" : time,
                         "departs_from": direction == "from" ? time : direction == "both" ? ride["event"]?.text.flatMap { ends[$0] } ?? "" : ""]) { $1 }
            offers.append(cells, from: ride, key: email.isEmpty ? nil : "\(event)/\(email)")
            for passenger in (ride["passengers"]?.elements ?? []).compactMap(\.text) {
                guard let (rider, ways) = passengers[passenger] else {
                    if !dump["passengers"].contains(where: { $0.id == passenger }) {
                        findings.warn(ride, field: "passengers", "passengers \(passenger) does not exist (deleted in the old app); left out of the ride")
                    }
                    continue
                }
                guard !rider.isEmpty, !email.isEmpty else { continue }
                for leg in ["to", "from"] where [direction, ways].allSatisfy({ $0 == leg || $0 == "both" }) {
                    seats[PassengerLeg(passenger: passenger, leg: leg), default: []].append((ride, Pairing(event: event, driver: email, passenger: rider, leg: leg)))
                }
            }
        }
        // A passenger two rides list for one leg sits in neither: which car is not known.
        for (seat, cars) in seats.sorted(by: { ($0.key.passenger, $0.key.leg) < ($1.key.passenger, $1.key.leg) }) {
            guard cars.count == 1 else {
                for (ride, _) in cars {
                    findings.warn(ride, field: "passengers", "passengers/\(seat.passenger) is listed by \(cars.map(\.0.name).joined(separator: " and ")) for the way \(seat.leg): seated in neither")
                }
                continue
            }
            pairings.append(cars[0].1)
        }
        return (offers, requests)
    }

    // MARK: Values

    /// A ride's pickup from its `Types.Location`: the place, its coordinates (`geo` is longitude,
    /// latitude) and postcode.
    private static func pickup(_ document: KeystoneDocument) -> [String: String] {
        let geo = document["location.geo"]?.elements?.compactMap(\.text) ?? []
        return ["pickup_location": place(document, "location"), "longitude": geo.count == 2 ? geo[0] : "",
                "latitude": geo.count == 2 ? geo[1] : "", "postal_code": document["location.postcode"]?.text ?? ""]
    }

    /// A `Types.Location` as one line: its name, street, city, state and postcode, and its country
    /// when it is not the US (a mission located only by country is that country).
    static func place(_ document: KeystoneDocument, _ field: String) -> String {
        guard document.has(field) else { return "" }
        func part(_ name: String) -> String? { document["\(field).\(name)"]?.text.flatMap { $0.isEmpty ? nil : $0 } }
        let street = [part("number"), part("street1")].compactMap { $0 }.joined(separator: " ")
        let state = [part("state"), part("postcode")].compactMap { $0 }.joined(separator: " ")
        let country = country(part("country")).flatMap { $0 == "US" ? nil : $0 }
        return [part("name"), street, part("street2"), part("street3"), part("suburb"), state, country].compactMap { $0 }
            .filter { !$0.isEmpty }.joined(separator: ", ")
    }

    /// A country as the campuses kind stores it: Keystone's default `USA` is `US`; nil when none.
    private static func country(_ text: String?) -> String? {
        switch text?.uppercased() {
        case nil, "": nil
        case "USA", "US", "UNITED STATES", "UNITED STATES OF AMERICA": "US"
        default: text
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
