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

    @Test("an SMTP URL with ? in its password is refused without showing it")
    func smtpPasswordWithQuestionMark() throws {
        let database = try TestDatabase()
        let result = try database.run(["notify", "--smtp-url", "smtp://pat:hun?ter2@mail.example.org"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("pat:***@mail.example.org"), "\(result.stderr)")
        #expect(!result.stderr.contains("hun") && !result.stderr.contains("ter2"), "\(result.stderr)")
    }
}
