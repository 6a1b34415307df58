import CSVStream

/// What a CSV column holds, which decides how a cell is normalised and checked.
public indirect enum CellType: Sendable, Equatable {
    case text
    /// A lower-case identifier such as `cru-calpoly`.
    case code
    case email
    /// A phone number, normalised to E.164 (`+18055550134`, extensions as `;ext=12`).
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
    /// 1 (freshman) to 5 (fifth year / graduate).
    case schoolYear
    case gradYear
    case positiveInt
    case money
    case date
    /// An ISO 8601 date-time, with or without offset.
    case dateTime
    /// An IANA time zone name (checked against the database's list).
    case timezone
    case choice([String])
    /// A `;`-separated list of values of one type.
    case list(CellType)

    /// The column type in the staging table the importer COPYs into.
    var stagingSQLType: String {
        switch self {
        case .list: "text"  // `a;b`, split with string_to_array in SQL
        case .time: "time"
        case .bool: "boolean"
        case .schoolYear, .gradYear: "smallint"
        case .positiveInt: "integer"
        case .money: "numeric(10,2)"
        case .date: "date"
        default: "text"
        }
    }
}

/// One column of a kind's CSV format.
public struct ColumnSpec: Sendable {
    /// The canonical header name (as `export` writes it).
    public let name: String
    public let type: CellType
    public let required: Bool
    /// Other header names accepted for this column.
    public let aliases: [String]

    init(_ name: String, _ type: CellType, required: Bool = false, aliases: [String] = []) {
        self.name = name
        self.type = type
        self.required = required
        self.aliases = aliases
    }

    /// Names that match this column, normalised (lower case, no spaces, `_` or `-`).
    var matchKeys: [String] {
        ([name] + aliases + Self.commonAliases[name, default: []]).map(CSVTableReader.normalizedName)
    }

    /// Aliases of DESIGN.md section 3, shared by every kind that has the column.
    static let commonAliases: [String: [String]] = [
        "sex": ["gender"],
        "email": ["e-mail", "email address", "e-mail address", "mail"],
        "phone": ["phone number", "mobile", "cell", "cell phone", "mobile phone", "telephone"],
        "first_name": ["first", "given name", "firstname", "first name"],
        "last_name": ["last", "surname", "family name", "lastname"],
        "school_year": ["year", "class", "year in school"],
        "campus": ["school"],
        "day": ["meeting_day", "day of week"],
        "time": ["meeting_time", "start time"],
        "timezone": ["time zone", "tz"],
        "url": ["link", "website"],
    ]
}
