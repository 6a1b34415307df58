import CruBatchTestSupport
import Testing

@Suite("passwords in messages")
struct PasswordMaskingTests {
    @Test("a database URL libpq cannot parse is echoed without its password, encoded or decoded")
    func malformedDatabaseURL() throws {
        let result = try CommandResult.run(["status", "--database-url", "postgresql://u:S3cret%40PW@[bad"])
        #expect(result.status == 69)
        #expect(result.stderr.contains("u:***@[bad"), "\(result.stderr)")
        for form in ["S3cret%40PW", "S3cret@PW", "S3cret"] {
            #expect(!result.stderr.contains(form) && !result.stdout.contains(form), "\(result.stderr)")
        }
    }

    @Test("a multi-host URL no host answers names every host it tried, as text and as JSON, without the password")
    func multiHostURL() throws {
        let url = "postgresql://u:S3cret%3FPW@127.0.0.1:9,127.0.0.1:10/cru?target_session_attrs=read-write&connect_timeout=2"
        for format in ["text", "json"] {
            let result = try CommandResult.run(["status", "--database-url", url, "--format", format])
            #expect(result.status == 69)
            let output = result.stdout + result.stderr
            #expect(output.contains("127.0.0.1:9, 127.0.0.1:10"), "\(output)")
            #expect(output.contains("database-unavailable") || format == "text", "\(output)")
            for form in ["S3cret%3FPW", "S3cret?PW", "S3cret"] {
                #expect(!output.contains(form), "\(output)")
            }
        }
    }

    @Test("an SMTP URL with ? in its password is refused without showing it")
    func smtpPasswordWithQuestionMark() throws {
        let database = try TestDatabase()
        let result = try database.run(["notify", "--smtp-url", "smtp://pat:hun?ter2@mail.example.org"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("pat:***@mail.example.org"), "\(result.stderr)")
        #expect(!result.stderr.contains("hun") && !result.stderr.contains("ter2"), "\(result.stderr)")
    }
}
