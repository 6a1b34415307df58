import PostgresClient
import CSVStream

/// What a CSV column holds, which decides how a cell is normalised and checked.
public indirect enum CellType: Sendable, Equatable {
    /// One line of text (a name, a title, a location): control characters, line breaks included, are refused.
    case text
    /// Free text that may span lines (a description): line breaks and tabs are kept, other control
    /// characters refused.
    case multilineText
    /// A lower-case identifier such as `cru-calpoly`.
    case code
    /// Another row by its code or its name (`cru-calpoly`, `Cru Cal Poly`): one line of text here,
    /// resolved to the code by the database checks (`NameMatcher`).
    case reference
    case email
    /// A phone number, normalised to E.164 (`+18055550134`, extensions as `;ext=12`); a label in
    /// parentheses (`(cell)`) is dropped.
    case phone
    case url
    /// Monday..Sunday.
    case day
    /// A time of day, normalised to `HH:MM`.
    case time
    case bool
    /// A person's sex: male, female, unknown, not-applicable (ISO/IEC 5218 codes accepted).
    case personSex
    /// A group's sex: men, women, mixed.
    case groupSex
    case audience
    /// 1 (freshman) to 5 (fifth year / graduate); `Class of 2028` gives the row's graduation year instead.
    case schoolYear
    case gradYear
    /// A leader's role: staff, intern, student.
    case staffRole
    /// A membership's status: active, pending.
    case membershipStatus
    /// A resource's type: article, video, audio, guide.
    case resourceType
    case positiveInt
    case money
    /// A calendar date (`DateTimeReader`), stored as `YYYY-MM-DD`.
    case date
    /// A date and time (`DateTimeReader`), with or without offset; a date alone is midnight.
    case dateTime
    /// A tz database zone or link name (America/Los_Angeles), stored in its tz spelling; US zone
    /// names and abbreviations are read as their tz zone.
    case timezone
    /// A list of values of one type in one cell (`CellNormalizer.separators`), stored `;`-separated.
    case list(CellType)
    /// Named date ranges such as a term's breaks, `Thanksgiving 2026-11-23..2026-11-27; Winter
    /// 2026-12-12..2027-01-04`, stored as a JSON array of `{name, starts_on, ends_on}`.
    case namedPeriods
    /// An iCalendar recurrence rule (RRULE value) such as `FREQ=WEEKLY;BYDAY=TU`, kept as written.
    case recurrenceRule
    /// Which ways an event shares rides: no, to (the event), from (the event), both; yes is both.
    case rideshare
    /// Which ways a ride goes: to (the event), from (the event), both.
    case rideDirection
    /// The passenger seats a driver offers: 1 to 8.
    case seats
    /// Degrees north (-90 to 90) and east (-180 to 180), as decimals (`35.3`, `-120.66`).
    case latitude, longitude
    /// A postal code (`93407`, `93407-0001`, `SW1A 1AA`), stored in upper case.
    case postalCode
    /// A ride offer's status: open, cancelled.
    case rideOfferStatus
    /// A ride request's status: pending, cancelled.
    case rideRequestStatus

    /// Text in which people write names in their own script (names, titles, locations, descriptions,
    /// rows named rather than coded): it keeps the joiners some scripts need inside a word.
    var isFreeText: Bool { self == .text || self == .multilineText || self == .reference }

    /// The vocabulary a cell of this type is read through, when its values are words.
    var vocabulary: Vocabulary? {
        switch self {
        case .bool: .bool
        case .personSex: .personSex
        case .groupSex: .groupSex
        case .audience: .audience
        case .schoolYear: .schoolYear
        case .staffRole: .staffRole
        case .membershipStatus: .membershipStatus
        case .resourceType: .resourceType
        case .day: .day
        case .time: .timeOfDay
        case .timezone: .timeZone
        case .phone: .phoneLabel
        case .rideshare: .rideshare
        case .rideDirection: .rideDirection
        case .rideOfferStatus: .rideOfferStatus
        case .rideRequestStatus: .rideRequestStatus
        default: nil
        }
    }

    /// The column type in the staging table the importer COPYs into.
    var stagingSQLType: SQLFragment {
        switch self {
        case .list: "text"  // `a;b`, split with string_to_array in SQL
        case .time: "time"
        case .bool: "boolean"
        case .schoolYear, .gradYear: "smallint"
        case .positiveInt, .seats: "integer"
        // As the target columns store them, so a value with more decimals compares as stored.
        case .latitude: "numeric(8,6)"
        case .longitude: "numeric(9,6)"
        case .money: "numeric(10,2)"
        case .date: "date"
        case .namedPeriods: "jsonb"
        default: "text"
        }
    }
}

/// One column of a kind's CSV format, declared once: its header and aliases, its cell type, and
/// where its value goes (a target column, a reference resolved to an id, or a list of child rows)
/// and comes back from on export.
public struct ColumnSpec: Sendable {
    /// The canonical header name (as `export` writes it).
    public let name: String
    public let type: CellType
    public let required: Bool
    /// Other header names accepted for this column.
    public let aliases: [String]
    /// Part of the kind's natural key.
    let isKey: Bool
    /// No two rows hold the same value (blank cells aside), though it is not the key (an event's UID).
    let isUnique: Bool
    /// Where a scalar value is stored (nil for list columns and details of a referenced row).
    let target: TargetColumn?
    let reference: Reference?
    let list: ListRelation?
    /// The column of the same row that narrows an ambiguous name in this one (a student's campus
    /// for the student's ministries); see `Reference.scope`.
    let nameScope: String?
    /// The referenced row this column describes, when it is that row's (a passenger's name).
    let detail: ReferencedDetail?
    /// What the stored value tells of a person (nil: not said, which a table holding people's data
    /// may not leave; see `PersonalColumns`).
    let personal: Personal?
    /// The export expression over the target row `t`, when the type's default does not fit.
    private let export: SQLFragment?

    /// A column stored in the target column `storedIn` (default: its own name). A `reference`
    /// stores the referenced row's id (in `<name>_id` unless `storedIn` says otherwise); a `list`
    /// stores child rows; a `detail` is stored in the row it describes, in the column of its name.
    /// `resolve` and `export` override how the value is computed from the staging row `s` and written
    /// back from the target row `t`. `personal` says whether `forget` erases the stored value.
    init(_ name: String, _ type: CellType, required: Bool = false, key: Bool = false, unique: Bool = false,
         aliases: [String] = [], storedIn: String? = nil, references reference: Reference? = nil, list: ListRelation? = nil,
         describes detail: ReferencedDetail? = nil, nameScope: String? = nil, resolve: SQLFragment? = nil,
         export: SQLFragment? = nil, insertDefault: SQLFragment? = nil, updatable: Bool = true, personal: Personal? = nil) {
        self.name = name
        self.type = type
        self.required = required
        self.aliases = aliases
        self.isKey = key
        self.isUnique = unique
        self.reference = reference
        self.list = list
        self.nameScope = nameScope
        self.detail = detail
        self.personal = personal
        self.export = export ?? detail.map { "\($0.reference.alias).\(identifier: name)" }
        if list != nil || detail != nil {
            target = nil
        } else {
            let column = storedIn ?? (reference != nil ? "\(name)_id" : name)
            let value = resolve ?? reference.map { "\($0.alias).id" } ?? "s.\(identifier: name)"
            target = TargetColumn(name: column, resolve: value, insertDefault: insertDefault, updatable: updatable)
        }
    }

    /// The column in the staging table.
    var stagedName: SQLFragment { "s.\(identifier: name)" }

    /// SQL over the target row `t` (and the reference joins) giving the cell as `import` reads it.
    /// A list column's value comes from its aggregate's join (`ListRelation.exportAggregate`).
    var exportExpression: SQLFragment {
        if let export { return export }
        if let reference { return "\(reference.alias).\(identifier: reference.keyColumn)" }
        let column: SQLFragment = "t.\(identifier: target?.name ?? name)"
        switch type {
        case .bool: return "case when \(column) then 'yes' else 'no' end"
        case .time: return "to_char(\(column), 'HH24:MI')"
        case .namedPeriods:
            return """
                (select string_agg(p->>'name' || ' ' || (p->>'starts_on') \
                || case when p->>'ends_on' = p->>'starts_on' then '' else '..' || (p->>'ends_on') end, '; ' order by n) \
                from jsonb_array_elements(\(column)) with ordinality x(p, n))
                """
        default: return column
        }
    }

    /// Names that match this column, normalised (lower case, no spaces, `_` or `-`).
    var matchKeys: [String] { ([name] + aliases).map(TableHeader.normalizedName) }
}
