import PostgresClient
import Testing

@Suite("ConnectionString")
struct ConnectionStringTests {
    @Test("masked hides passwords", arguments: [
        ("postgresql://bob:s3cret@db.example.org:5432/cru", "postgresql://bob:***@db.example.org:5432/cru"),
        ("postgres://bob:p%40ss%2Fw0rd@db/cru?sslmode=require", "postgres://bob:***@db/cru?sslmode=require"),
        ("postgresql://bob@db/cru", "postgresql://bob@db/cru"),
        ("postgresql://db:5432/cru", "postgresql://db:5432/cru"),
        ("postgresql://db/cru?user=bob&password=s3cret&sslmode=require",
         "postgresql://db/cru?user=bob&password=***&sslmode=require"),
        // An "@" after the host is not user information.
        ("postgresql://db:5432/cru?application_name=a@b", "postgresql://db:5432/cru?application_name=a@b"),
        ("host=db user=bob password=s3cret dbname=cru", "host=db user=bob password=*** dbname=cru"),
        ("host=db password = s3cret dbname=cru", "host=db password = *** dbname=cru"),
        ("password=s3cret", "password=***"),
        ("host=db password='s3 cr\\'et' dbname=cru", "host=db password=*** dbname=cru"),
        ("host=db sslpassword=keypass sslmode=verify-full", "host=db sslpassword=*** sslmode=verify-full"),
        ("", ""),
    ])
    func masking(connection: String, expected: String) {
        let masked = ConnectionString.masked(connection)
        #expect(masked == expected)
        for secret in ["s3cret", "s3 cr", "keypass", "p%40ss"] {
            #expect(!masked.contains(secret))
        }
    }

    @Test("resolve: an explicit URL, else DATABASE_URL, else the empty string")
    func resolution() {
        let environment = ["DATABASE_URL": "postgresql://env/db", "PGHOST": "ignored"]
        #expect(ConnectionString.resolve(explicit: "postgresql://flag/db", environment: environment) == "postgresql://flag/db")
        #expect(ConnectionString.resolve(explicit: nil, environment: environment) == "postgresql://env/db")
        #expect(ConnectionString.resolve(explicit: "", environment: environment) == "postgresql://env/db")
        #expect(ConnectionString.resolve(explicit: nil, environment: ["DATABASE_URL": ""]) == "")
        #expect(ConnectionString.resolve(explicit: nil, environment: [:]) == "")
        #expect(ConnectionString.resolve(explicit: "host=x", environment: [:]) == "host=x")
    }
}
