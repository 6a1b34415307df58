/// The words crubatch reads for the values of one kind of cell (a person's sex, a school year, a
/// time zone ...). Every vocabulary is one part of `Vocabulary.table`, the single table of accepted
/// spellings; the "Vocabulary" of docs/guide/file-formats.md lists the same words and a test keeps the two in step.
public enum Vocabulary: String, CaseIterable, Sendable {
    case bool
    case personSex = "person-sex"
    case groupSex = "group-sex"
    case audience
    case schoolYear = "school-year"
    case staffRole = "staff-role"
    case membershipStatus = "membership-status"
    case resourceType = "resource-type"
    case day
    case timeOfDay = "time-of-day"
    case phoneLabel = "phone-label"
    case timeZone = "time-zone"
    case rideshare
    case rideDirection = "ride-direction"
    case rideOfferStatus = "ride-offer-status"
    case rideRequestStatus = "ride-request-status"

    /// One value of a vocabulary and every way of writing it.
    struct Term: Sendable {
        /// What the column stores; nil stores nothing (the cell is read as empty, with a warning).
        let value: String?
        /// Spellings as people write them; compared by `Vocabulary.key`, so case, spaces and
        /// punctuation do not matter (`Staff Member` = `staff-member`).
        let spellings: [String]
        /// Why a person should check a cell read this way (an abbreviation, a year left empty).
        var warning: String?

        init(_ value: String?, _ spellings: [String], warning: String? = nil) {
            self.value = value
            self.spellings = spellings
            self.warning = warning
        }
    }

    private static let abbreviatedZone = "time zone abbreviations are read as US zones"

    /// The ways of a ride, shared by a ride's direction and an event's rideshare.
    private static let toTheEvent = ["to", "to the event", "there", "going"]
    private static let fromTheEvent = ["from", "from the event", "back", "home"]
    private static let bothWays = ["both", "both ways", "to and from", "there and back", "round trip"]
    private static let cancelled = ["cancelled", "canceled", "withdrawn"]

    /// Every accepted spelling of every vocabulary.
    static let table: [Vocabulary: [Term]] = [
        .bool: [
            Term("true", ["yes", "y", "true", "t", "1", "x"]),
            Term("false", ["no", "n", "false", "f", "0"]),
        ],
        .personSex: [
            Term("male", ["male", "m", "man", "men", "guy", "guys", "boy", "boys", "1"]),
            Term("female", ["female", "f", "woman", "women", "girl", "girls", "lady", "ladies", "2"]),
            Term("unknown", ["unknown", "0", "Prefer not to say", "Prefer not to answer", "Rather not say",
                             "Decline to state"]),
            Term("not-applicable", ["not applicable", "n/a", "9"]),
        ],
        .groupSex: [
            Term("men", ["men", "man", "male", "m", "guys", "boys"]),
            Term("women", ["women", "woman", "female", "f", "ladies", "girls"]),
            Term("mixed", ["mixed", "mixed sexes", "co-ed", "everyone", "all", "both", "anyone"]),
        ],
        .audience: [
            Term("freshmen", ["freshmen", "freshman", "Fr", "first years", "first-year", "1st years"]),
            Term("sophomores", ["sophomores", "sophomore", "So", "Soph", "second years"]),
            Term("juniors", ["juniors", "junior", "Jr", "third years"]),
            Term("seniors", ["seniors", "senior", "Sr", "fourth years"]),
            Term("graduates", ["graduates", "graduate", "grad", "grads", "grad students", "graduate students"]),
            Term("faculty", ["faculty", "faculty and staff"]),
            Term("mixed", ["mixed", "mixed ages", "all", "all years", "everyone", "anyone", "open to all"]),
        ],
        .schoolYear: [
            Term("1", ["freshman", "Fr", "first", "1st", "first year", "1st year"]),
            Term("2", ["sophomore", "So", "Soph", "second", "2nd", "second year", "2nd year"]),
            Term("3", ["junior", "Jr", "third", "3rd", "third year", "3rd year"]),
            Term("4", ["senior", "Sr", "fourth", "4th", "fourth year", "4th year"]),
            Term("5", ["fifth", "5th", "fifth year", "5th Year", "super senior", "graduate", "grad", "Grad Student",
                       "graduate student"]),
            Term(nil, ["Transfer", "transfer student"],
                 warning: "a transfer student's year is not known; fill it in if you know it"),
        ],
        .staffRole: [
            Term("staff", ["staff", "Staff Member", "Cru staff", "full-time staff"]),
            Term("intern", ["intern", "ministry intern", "staff intern"]),
            Term("student", ["student", "student leader"]),
        ],
        .membershipStatus: [
            Term("active", ["active", "member", "joined"]),
            Term("pending", ["pending", "waitlist", "wait list", "waitlisted", "waiting", "waiting list"]),
            Term("left", ["left", "ended", "former member"]),
        ],
        .resourceType: [
            Term("article", ["article", "blog post", "post"]),
            Term("video", ["video"]),
            Term("audio", ["audio", "podcast"]),
            Term("guide", ["guide", "study guide"]),
        ],
        .day: [
            Term("Monday", ["Monday", "Mondays", "Mon", "Mo", "M"]),
            Term("Tuesday", ["Tuesday", "Tuesdays", "Tue", "Tues", "Tu"]),
            Term("Wednesday", ["Wednesday", "Wednesdays", "Wed", "Weds", "W"]),
            Term("Thursday", ["Thursday", "Thursdays", "Thu", "Thur", "Thurs", "Thr", "Th", "R"]),
            Term("Friday", ["Friday", "Fridays", "Fri", "Fr", "F"]),
            Term("Saturday", ["Saturday", "Saturdays", "Sat", "Sa"]),
            Term("Sunday", ["Sunday", "Sundays", "Sun", "Su"]),
        ],
        .timeOfDay: [
            Term("12:00", ["noon", "12 noon", "midday"]),
            Term("00:00", ["midnight", "12 midnight"]),
        ],
        .phoneLabel: [
            Term("cell", ["cell", "c", "cell phone", "mobile", "mobile phone", "m", "text", "iPhone"]),
            Term("home", ["home", "h", "landline"]),
            Term("work", ["work", "w", "office", "work phone", "main"]),
            Term("personal", ["personal"]),
        ],
        .timeZone: [
            Term("America/Los_Angeles", ["Pacific", "Pacific Time", "Pacific Standard Time", "Pacific Daylight Time"]),
            Term("America/Los_Angeles", ["PT", "PST", "PDT"], warning: abbreviatedZone),
            Term("America/Denver", ["Mountain", "Mountain Time", "Mountain Standard Time", "Mountain Daylight Time"]),
            Term("America/Denver", ["MT", "MST", "MDT"], warning: abbreviatedZone + " (Arizona is America/Phoenix)"),
            Term("America/Phoenix", ["Arizona", "Arizona Time"]),
            Term("America/Chicago", ["Central", "Central Time", "Central Standard Time", "Central Daylight Time"]),
            Term("America/Chicago", ["CT", "CST", "CDT"], warning: abbreviatedZone),
            Term("America/New_York", ["Eastern", "Eastern Time", "Eastern Standard Time", "Eastern Daylight Time"]),
            Term("America/New_York", ["ET", "EST", "EDT"], warning: abbreviatedZone),
            Term("America/Anchorage", ["Alaska", "Alaska Time"]),
            Term("America/Anchorage", ["AKST", "AKDT"], warning: abbreviatedZone),
            Term("Pacific/Honolulu", ["Hawaii", "Hawaii Time", "Hawaii-Aleutian Time"]),
            Term("Pacific/Honolulu", ["HST"], warning: abbreviatedZone),
        ],
        // `t` and `f` are not read: true or to, false or from?
        .rideshare: [
            Term("no", ["no", "n", "false", "0", "none"]),
            Term("both", ["yes", "y", "true", "1", "x"] + bothWays),
            Term("to", toTheEvent),
            Term("from", fromTheEvent),
        ],
        .rideDirection: [Term("to", toTheEvent), Term("from", fromTheEvent), Term("both", bothWays)],
        .rideOfferStatus: [Term("open", ["open", "active", "available", "offered"]), Term("cancelled", cancelled)],
        .rideRequestStatus: [Term("pending", ["pending", "waiting", "requested", "open"]), Term("cancelled", cancelled)],
    ]

    /// The terms of this vocabulary.
    var terms: [Term] { Self.table[self] ?? [] }

    /// The term a cell's text spells, if any.
    func term(for text: String) -> Term? { Self.index[self]?[Self.key(text)] }

    /// The values this vocabulary stores, in table order, for messages ("men, women, mixed").
    var values: [String] {
        var seen: [String] = []
        for case let value? in terms.map(\.value) where !seen.contains(value) { seen.append(value) }
        return seen
    }

    /// Every spelling, for "did you mean".
    var spellings: [String] { terms.flatMap(\.spellings) }

    /// A spelling's lookup key: lower case, letters and digits only.
    static func key(_ text: String) -> String {
        // ASCII text, nearly every cell, on bytes: the same letters and digits NameWords keeps.
        guard text.utf8.allSatisfy({ $0 < 0x80 }) else { return NameWords.words(of: text).joined() }
        let kept = text.utf8.compactMap { byte -> UInt8? in
            switch byte {
            case 0x41...0x5A: byte | 0x20
            case 0x61...0x7A, 0x30...0x39: byte
            default: nil
            }
        }
        return String(decoding: kept, as: UTF8.self)
    }

    private static let index: [Vocabulary: [String: Term]] = table.mapValues { terms in
        var byKey: [String: Term] = [:]
        for term in terms {
            for spelling in term.spellings { byKey[key(spelling)] = term }
        }
        return byKey
    }
}

/// Splits text into the lower-case words that names and spellings are compared by: runs of
/// letters and digits, everything else a separator (`Cal Poly SLO` -> cal, poly, slo).
enum NameWords {
    static func words(of text: String) -> [String] {
        var words: [String] = []
        var current = String.UnicodeScalarView()
        for scalar in CellNormalizer.trimmedNFC(text).lowercased().unicodeScalars {
            if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
                current.append(scalar)
            } else if !current.isEmpty {
                words.append(String(current))
                current = String.UnicodeScalarView()
            }
        }
        if !current.isEmpty { words.append(String(current)) }
        return words
    }
}
