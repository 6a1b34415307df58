import PostgresClient

/// A person's contact as rosters and messages show it: name, first name, email and phone (as
/// people write it, nil when none is known). The SQL that reads it from `people` is `of(_:)`,
/// written once; a row decodes it from those columns, a JSON list from `json_agg` over them.
struct PersonContact: PostgresRowDecodable, Decodable {
    let firstName: String
    let lastName: String
    let email: String
    let phone: String?

    /// `First Last`.
    var name: String { firstName + " " + lastName }

    /// The contact of the person whose id is the SQL expression `person`, a lateral subquery to
    /// join under an alias (`cross join \(PersonContact.of("m.person_id")) s`, then `s.*`); its
    /// columns are the order a row decodes and the keys a JSON object holds.
    static func of(_ person: PostgresQuery) -> PostgresQuery {
        "lateral (select first_name, last_name, email, phone from people where id = \(person))"
    }

    private enum CodingKeys: String, CodingKey {
        case firstName = "first_name"
        case lastName = "last_name"
        case email, phone
    }

    private init(firstName: String, lastName: String, email: String, storedPhone: String?) {
        self.firstName = firstName
        self.lastName = lastName
        self.email = email
        phone = storedPhone.map { PeopleText.phone($0) }
    }

    init(cells: inout PostgresCells) throws(PostgresError) {
        self.init(firstName: try cells.next(String.self), lastName: try cells.next(String.self),
                  email: try cells.next(String.self), storedPhone: try cells.next(String?.self))
    }

    init(from decoder: any Decoder) throws {
        let object = try decoder.container(keyedBy: CodingKeys.self)
        self.init(firstName: try object.decode(String.self, forKey: .firstName),
                  lastName: try object.decode(String.self, forKey: .lastName),
                  email: try object.decode(String.self, forKey: .email),
                  storedPhone: try object.decodeIfPresent(String.self, forKey: .phone))
    }
}
