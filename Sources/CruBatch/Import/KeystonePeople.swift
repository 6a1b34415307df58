import Foundation

/// Who the old app's users are here, decided before their rows are made: leader or student and in
/// what role, the email that keys them, the phone they keep. Shapes that cannot be read without a
/// guess are refused with the reason (two records with one email and different details, a role
/// only staff had on someone not marked staff, a leader whose phone is a placeholder).
struct KeystonePeople {
    /// A user who gets a row.
    struct Person {
        let user: KeystoneDocument
        /// Lower case; empty when the user has none (the import refuses the row).
        let email: String
        let phone: String
        /// The leader's staff role (`staff`, `intern`, `student`); nil for a student.
        let staffRole: String?
    }

    let dump: KeystoneDump
    private(set) var findings: KeystoneFindings
    private(set) var decided: [Person] = []

    init(dump: KeystoneDump, findings: KeystoneFindings) {
        self.dump = dump
        self.findings = findings
    }

    /// The phones the old app's update scripts wrote where a user had none: never a person's.
    static func isPlaceholder(_ phone: String) -> Bool {
        phone.trimmingCharacters(in: .whitespaces).lowercased() == "undefined" || phone.filter(\.isNumber).hasSuffix("1231231234")
    }

    /// Decides every user; returns the email of each user who gets a row and has one, by `_id`.
    mutating func decideEmails() -> [String: String] {
        let leading = Set((dump["communitygroups"] + dump["ministryteams"]).flatMap { ($0["leaders"]?.elements ?? []).compactMap(\.text) })
        var byEmail: [String: [KeystoneDocument]] = [:]
        for user in dump["users"] { byEmail[Self.email(of: user), default: []].append(user) }
        var emails: [String: String] = [:]
        for user in dump["users"] {
            guard let id = user.id else { continue }
            let email = Self.email(of: user)
            if !email.isEmpty, let twins = byEmail[email], twins.count > 1, !keepsOne(of: twins, user: user) { continue }
            guard let role = role(of: user, leads: leading.contains(id)) else { continue }
            var phone = user["phone"]?.text ?? ""
            if Self.isPlaceholder(phone) {
                if role != nil {
                    findings.refuse(user, field: "phone", reason: "placeholder phone of a leader",
                                    "the phone is a placeholder the old app's update wrote where a user had none, not this leader's; a leader's phone is required",
                                    hint: "give the leader their phone in leaders.csv, or leave them out with --on-error skip",
                                    table: PersonalColumns.people, key: email)
                    continue
                }
                findings.warn(user, field: "phone", code: .assumedValue, "the phone is a placeholder the old app's update wrote where a user had none: left empty")
                phone = ""
            }
            decided.append(Person(user: user, email: email, phone: phone, staffRole: role))
            if !email.isEmpty { emails[id] = email }
        }
        return emails
    }

    /// Of users sharing one email: true for the one kept. When they agree on everything a row
    /// holds, the newest is kept and the others are not migrated as its copies; otherwise every
    /// one is refused, as which is the person's record is not known.
    private mutating func keepsOne(of twins: [KeystoneDocument], user: KeystoneDocument) -> Bool {
        let newest = twins.max { ($0.id ?? "") < ($1.id ?? "") }!
        let facts = { (user: KeystoneDocument) in
            ["name.first", "name.last", "phone", "sex", "schoolYear"].map { user[$0]?.text ?? "" }
        }
        let others = twins.filter { $0 !== user }.map(\.name).joined(separator: ", ")
        if Set(twins.map(facts)).count == 1 {
            if user === newest { return true }
            findings.omissions.append(.init(document: user, reason: "a copy of a newer user with the same email and details"))
            findings.warn(user, field: "email", code: .assumedValue, "a copy of \(newest.name), which has the same email and details: not migrated")
            return false
        }
        findings.refuse(user, field: "email", reason: "one email, two records", "\(others) \(twins.count == 2 ? "has" : "have") this email too, with other details: which is this person's record is not known",
                        hint: "merge them with people merge after migrating one, or leave them out with --on-error skip",
                        table: PersonalColumns.people, key: Self.email(of: user))
        return false
    }

    /// A leader's staff role, `.some(nil)` for a student, or nil when refused. Staff saved before
    /// 2017-08 have `isStaff` and no `staffRole`, which the app read as Staff; a `staffRole` of
    /// `Staff` on someone not staff is the default every user got saved with since.
    private mutating func role(of user: KeystoneDocument, leads: Bool) -> String?? {
        let isStaff = user["isStaff"]?.bool == true
        let role = user["staffRole"]?.text
        let flagged = ["isCommunityGroupLeader", "isMinistryTeamLeader", "isSummerMissionLeader"].map { user[$0]?.bool == true }
        if isStaff {
            switch role {
            case nil, "Staff": return .some("staff")
            case "Intern": return .some("intern")
            case "MTL": return .some("student")
            default: return .some(role)
            }
        }
        if role == "Intern" || role == "MTL" {
            findings.refuse(user, field: "staffRole", reason: "staff role without isStaff",
                            "staffRole is \(role!) but isStaff is not set: the old app gave that role only to staff, and until 2017-10 its phone updates cleared isStaff, so whether this user is staff is not known",
                            hint: "load them from leaders.csv with their staff_role, or leave them out with --on-error skip",
                            table: PersonalColumns.people, key: Self.email(of: user))
            return nil
        }
        return leads || flagged.contains(true) ? .some("student") : .some(nil)
    }

    /// A user's email, trimmed and in lower case (the old app's API did not lower-case it).
    static func email(of user: KeystoneDocument) -> String {
        (user["email"]?.text ?? "").trimmingCharacters(in: .whitespaces).lowercased()
    }
}

/// Finds the user a ride's driver or passenger is: the old app knew them by name and phone only.
/// A phone one user has names that user; a phone several users share (a family's) names the one
/// whose name is the name given, and when none or several are, nobody: the row is refused naming
/// the users. A placeholder phone names nobody; a phone only a refused user has refuses the row.
struct KeystonePhones {
    /// Who a phone names.
    enum Match {
        case user(email: String)
        /// No user has the phone: a guest (a passenger is added as a non-member).
        case nobody
        /// Why the phone names nobody who can be migrated, and the reason's short name.
        case refused(String, reason: String)

        var email: String? {
            if case .user(let email) = self { return email }
            return nil
        }

        var reason: String {
            if case .refused(_, let reason) = self { return reason }
            return ""
        }
    }

    private var users: [String: [KeystoneDocument]] = [:]
    private let emails: [String: String]
    private let refusals: [String: String]

    init(users documents: [KeystoneDocument], emails: [String: String], refused findings: KeystoneFindings) {
        for user in documents {
            guard let key = Self.key(user["phone"]?.text) else { continue }
            users[key, default: []].append(user)
        }
        self.emails = emails
        refusals = Dictionary(findings.refusals.filter { $0.document.collection == "users" }.map { ($0.document.id ?? "", $0.message) }) { first, _ in first }
    }

    /// The user with `phone`, and with `name` when several have the phone.
    func user(phone: String?, name: String) -> Match {
        if let phone, KeystonePeople.isPlaceholder(phone) {
            return .refused("the phone is a placeholder the old app's update wrote where a user had none, so it names nobody",
                            reason: "placeholder phone")
        }
        guard let key = Self.key(phone) else { return .nobody }
        let candidates = users[key] ?? []
        guard candidates.count > 1 else { return candidates.first.map(match) ?? .nobody }
        let named = candidates.filter { Self.fold([$0["name.first"]?.text, $0["name.last"]?.text].compactMap { $0 }.joined(separator: " ")) == Self.fold(name) }
        if named.count == 1 { return match(named[0]) }
        return .refused("\(candidates.map(\.name).joined(separator: " and ")) share this phone, and the name given is \(named.isEmpty ? "neither's" : "each one's"): which user this is is not known",
                        reason: "shared phone")
    }

    private func match(_ user: KeystoneDocument) -> Match {
        if let email = emails[user.id ?? ""] { return .user(email: email) }
        return .refused("the user with this phone, \(user.name), is not migrated: \(refusals[user.id ?? ""] ?? "it has no email")",
                        reason: "phone of a user not migrated")
    }

    /// The last ten digits of a phone, which find the user a ride names by phone.
    private static func key(_ phone: String?) -> String? {
        let digits = (phone ?? "").filter(\.isASCII).filter(\.isNumber)
        return digits.count >= 10 ? String(digits.suffix(10)) : nil
    }

    /// A name compared without case, accents or extra spaces.
    private static func fold(_ name: String) -> String {
        name.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
