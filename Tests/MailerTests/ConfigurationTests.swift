import CruBatchTestSupport
import Testing
@testable import Mailer

@Suite("SMTP URLs")
struct ConfigurationTests {
    @Test func plainSMTPWithPort() throws {
        let config = try SMTPConfiguration(url: "smtp://127.0.0.1:25259")
        #expect(config.host == "127.0.0.1")
        #expect(config.port == 25259)
        #expect(config.security == .startTLSIfOffered)
        #expect(config.username == nil && config.password == nil)
        #expect(!config.insecure)
        #expect(config.timeout == 30)
        #expect(config.curlURL == "smtp://127.0.0.1:25259")
        #expect(config.maskedURL == "smtp://127.0.0.1:25259")
    }

    @Test func defaultPorts() throws {
        let smtp = try SMTPConfiguration(url: "smtp://mail.example.org")
        #expect(smtp.port == 587)
        #expect(smtp.security == .startTLSIfOffered)
        let smtps = try SMTPConfiguration(url: "SMTPS://mail.example.org")
        #expect(smtps.port == 465)
        #expect(smtps.security == .implicitTLS)
        #expect(smtps.curlURL == "smtps://mail.example.org:465")
        #expect(try SMTPConfiguration(url: "smtps://mail.example.org:2465").port == 2465)
    }

    @Test func percentEncodedCredentialsAreDecodedAndMasked() throws {
        let url = "smtp://leader%40cru.org:p%40ss%3Aw%2Frd@smtp.example.org:2525"
        let config = try SMTPConfiguration(url: url)
        #expect(config.username == "leader@cru.org")
        #expect(config.password == "p@ss:w/rd")
        #expect(config.host == "smtp.example.org")
        #expect(config.port == 2525)
        #expect(config.maskedURL == "smtp://leader%40cru.org:***@smtp.example.org:2525")
        #expect(config.description == config.maskedURL)
        #expect(config.curlURL == "smtp://smtp.example.org:2525")
        #expect(SMTPConfiguration.mask(url) == "smtp://leader%40cru.org:***@smtp.example.org:2525")
        #expect(try SMTPConfiguration(url: config.maskedURL).username == "leader@cru.org")
    }

    @Test func userWithoutPasswordAndUnencodedAtInPassword() throws {
        let userOnly = try SMTPConfiguration(url: "smtp://apikey@smtp.example.org")
        #expect(userOnly.username == "apikey" && userOnly.password == nil)
        #expect(userOnly.maskedURL == "smtp://apikey@smtp.example.org:587")
        let raw = try SMTPConfiguration(url: "smtps://me:a@b@smtp.example.org")
        #expect(raw.username == "me" && raw.password == "a@b" && raw.host == "smtp.example.org")
        #expect(!raw.maskedURL.contains("a@b"))
    }

    @Test func tlsAndOtherOptions() throws {
        #expect(try SMTPConfiguration(url: "smtp://h:25?tls=require").security == .startTLSRequired)
        #expect(try SMTPConfiguration(url: "smtp://h:25?tls=none").security == .none)
        #expect(try SMTPConfiguration(url: "smtp://h:25?tls=try").security == .startTLSIfOffered)
        #expect(try SMTPConfiguration(url: "smtps://h?tls=require").security == .implicitTLS)
        let config = try SMTPConfiguration(url: "smtp://u:secret@h:25?tls=require&verify=no&timeout=5")
        #expect(config.insecure)
        #expect(config.timeout == 5 && config.connectTimeout == 5)
        #expect(config.maskedURL == "smtp://u:***@h:25?tls=require&verify=no&timeout=5")
        #expect(try SMTPConfiguration(url: "smtp://h?connect_timeout=2.5").connectTimeout == 2.5)
        #expect(try SMTPConfiguration(url: "smtp://h").connectTimeout == 10)
    }

    @Test func ipv6AndEHLODomain() throws {
        let config = try SMTPConfiguration(url: "smtp://[::1]:2525/crubatch.example.org")
        #expect(config.host == "::1" && config.port == 2525)
        #expect(config.heloDomain == "crubatch.example.org")
        #expect(config.curlURL == "smtp://[::1]:2525/crubatch.example.org")
    }

    @Test(arguments: [
        "mail.example.org", "http://mail.example.org", "smtp://", "smtp://h:0", "smtp://h:99999", "smtp://h:port",
        "smtp://h?tls=maybe", "smtps://h?tls=none", "smtp://h?verify=perhaps", "smtp://h?timeout=-1",
        "smtp://h?colour=blue", "smtp://u%zz:p@h",
    ])
    func badURLsAreRefused(url: String) throws {
        let error = try #require(throws: MailError.self) { try SMTPConfiguration(url: url) }
        #expect(error.scope == .configuration)
        #expect(error.message.contains("invalid SMTP URL"))
    }

    @Test func errorsNeverShowThePassword() throws {
        let error = try #require(throws: MailError.self) {
            try SMTPConfiguration(url: "smtp://pat:hunter2@mail.example.org:99999")
        }
        #expect(!error.description.contains("hunter2"))
        #expect(error.description.contains("pat:***@mail.example.org"))
    }

    @Test("a refused URL never shows the password, whatever it holds", arguments: [
        "smtp://pat:hun?ter2@mail.example.org", "smtp://pat:hun?ter2@mail.example.org:99999",
        "smtp://pat:hun#ter2@mail.example.org?tls=maybe", "smtps://pat:hun/ter2@mail.example.org?tls=none",
        "smtp://pat:hun%3Fter2@mail.example.org?colour=blue", "smtp://pat:hun ter2@[::1:2525",
    ])
    func refusedURLsAreMasked(url: String) throws {
        let error = try #require(throws: MailError.self) { try SMTPConfiguration(url: url) }
        for form in ["hun", "ter2"] {
            #expect(!error.description.contains(form), "\(error.description)")
        }
        #expect(error.description.contains("pat:***@"), "\(error.description)")
    }
}
