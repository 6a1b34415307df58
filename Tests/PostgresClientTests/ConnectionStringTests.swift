import CruBatchTestSupport
import Credentials
import PostgresClient
import Testing

@Suite("Credentials")
struct CredentialsTests {
    @Test("masked hides the password of every shape of database and SMTP URL and key=value string", arguments: [
        // postgres(ql):// URLs
        ("postgresql://bob:s3cret@db.example.org:5432/cru", "postgresql://bob:***@db.example.org:5432/cru"),
        ("postgres://bob:p%40ss%2Fw0rd@db/cru?sslmode=require", "postgres://bob:***@db/cru?sslmode=require"),
        ("postgresql://bob@db/cru", "postgresql://bob@db/cru"),
        ("postgresql://db:5432/cru", "postgresql://db:5432/cru"),
        ("postgresql://:s3cret@db/cru", "postgresql://:***@db/cru"),
        ("postgresql://bob:s3cret@/cru", "postgresql://bob:***@/cru"),
        ("postgresql://bob:s3cret@", "postgresql://bob:***@"),
        ("postgresql://u:S3cret%40PW@[bad", "postgresql://u:***@[bad"),
        ("postgresql://bob:s3cret@[::1]:5432/cru", "postgresql://bob:***@[::1]:5432/cru"),
        ("postgresql://bob:s3cret@h1:5432,[2001:db8::1]:5433/cru?target_session_attrs=read-write",
         "postgresql://bob:***@h1:5432,[2001:db8::1]:5433/cru?target_session_attrs=read-write"),
        // Unencoded @ : / ? # and % in the password stay inside the user information.
        ("postgresql://bob:p@ss@db/cru", "postgresql://bob:***@db/cru"),
        ("postgresql://bob:p:ss@db/cru", "postgresql://bob:***@db/cru"),
        ("postgresql://bob:p/ss@db/cru", "postgresql://bob:***@db/cru"),
        ("postgresql://bob:p?ss@db/cru?sslmode=require", "postgresql://bob:***@db/cru?sslmode=require"),
        ("postgresql://bob:p#ss@db/cru", "postgresql://bob:***@db/cru"),
        ("postgresql://bob:100%25sure@db/cru", "postgresql://bob:***@db/cru"),
        ("postgresql://bob:50%off@db/cru", "postgresql://bob:***@db/cru"),
        // Passwords in the query string.
        ("postgresql://db/cru?user=bob&password=s3cret&sslmode=require",
         "postgresql://db/cru?user=bob&password=***&sslmode=require"),
        ("postgresql://[::1]:5432/cru?password=s3%40cret", "postgresql://[::1]:5432/cru?password=***"),
        ("postgresql://db/cru?sslmode=verify-full&sslpassword=keyp%40ss",
         "postgresql://db/cru?sslmode=verify-full&sslpassword=***"),
        ("postgresql://db/cru?PassWord=s3cret", "postgresql://db/cru?PassWord=***"),
        ("postgresql://db/cru?password=s3&cr3t&sslmode=require",
         "postgresql://db/cru?password=***&***&sslmode=require"),
        // An "@" after the host is not user information.
        ("postgresql://db:5432/cru?application_name=a@b", "postgresql://db:5432/cru?application_name=a@b"),
        // key=value strings
        ("host=db user=bob password=s3cret dbname=cru", "host=db user=bob password=*** dbname=cru"),
        ("host=db password = s3cret dbname=cru", "host=db password = *** dbname=cru"),
        ("password=s3cret", "password=***"),
        ("host=db password='s3 cr\\'et' dbname=cru", "host=db password=*** dbname=cru"),
        ("user='bob' password='p@ss w:rd/?#%' host=db", "user='bob' password=*** host=db"),
        ("host=db password=my secret dbname=cru", "host=db password=*** *** dbname=cru"),
        ("host=db sslpassword=keypass sslmode=verify-full", "host=db sslpassword=*** sslmode=verify-full"),
        ("", ""),
        // smtp(s):// URLs
        ("smtp://leader%40cru.org:p%40ss%3Aw%2Frd@smtp.example.org:2525",
         "smtp://leader%40cru.org:***@smtp.example.org:2525"),
        ("smtp://u:pa?ss@mail.example.org:587", "smtp://u:***@mail.example.org:587"),
        ("smtp://u:pa?ss=1@mail.example.org?tls=require", "smtp://u:***@mail.example.org?tls=require"),
        ("smtps://me:a@b@smtp.example.org", "smtps://me:***@smtp.example.org"),
        ("smtp://u:secret@h:25?tls=require&verify=no", "smtp://u:***@h:25?tls=require&verify=no"),
        ("SMTPS://u:s3cret@[2001:db8::1]:465", "SMTPS://u:***@[2001:db8::1]:465"),
        ("smtp://apikey@smtp.example.org", "smtp://apikey@smtp.example.org"),
    ])
    func masking(connection: String, expected: String) {
        #expect(Credentials.masked(connection) == expected)
    }

    @Test("scrub removes the password from a message in every form: as written, decoded, percent-encoded")
    func scrubbingMessages() {
        let credentials = Credentials(in: "postgresql://u:S3cret%40PW@[bad")
        let message = #"invalid URI "postgresql://u:S3cret%40PW@[bad"; password S3cret@PW"#
        #expect(credentials.scrub(message) == #"invalid URI "postgresql://u:***@[bad"; password ***"#)
        let slash = Credentials(in: "smtp://u:a%2fb%20c@mail.example.org")
        #expect(slash.scrub("a%2fb%20c a/b c a%2Fb%20c") == "*** *** ***")

        let keywords = Credentials(in: "host=db password=my secret")
        #expect(keywords.scrub(#"missing "=" after "secret" in connection info string"#)
            == #"missing "=" after "***" in connection info string"#)
        #expect(Credentials(in: "postgresql://db/cru").scrub("nothing to hide") == "nothing to hide")
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
