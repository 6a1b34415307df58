import CruBatchTestSupport
import Foundation
import Testing
@testable import Mailer

@Suite("Rendering messages")
struct RenderingTests {
    static let date = Date(timeIntervalSince1970: 1_741_097_109) // Tue, 04 Mar 2025 14:05:09 UTC

    static func message(subject: String = "Zoë joined Tuesday Men's Group",
                        body: String = "Hello,\nZoë Park joined Tuesday Men's Group.\n",
                        extraHeaders: [(String, String)] = []) -> EmailMessage {
        EmailMessage(from: EmailAddress("noreply@crubatch.test", name: "Cru Batch"),
                     to: [EmailAddress("leader@example.edu", name: "Pat Leader"), EmailAddress("co@example.edu")],
                     subject: subject, body: body, messageID: "notification-42@crubatch",
                     date: date, extraHeaders: extraHeaders)
    }

    @Test func headersArePresentInOrder() throws {
        let mail = ParsedMail(Self.message(extraHeaders: [("X-Crubatch-Notification", "42")]).rendered())
        #expect(mail.headers.map(\.0) == [
            "Date", "From", "To", "Subject", "Message-ID", "MIME-Version", "Content-Type",
            "Content-Transfer-Encoding", "X-Crubatch-Notification",
        ])
        #expect(mail.raw("Date") == "Tue, 04 Mar 2025 14:05:09 +0000")
        #expect(mail.raw("From") == "\"Cru Batch\" <noreply@crubatch.test>")
        #expect(mail.raw("To") == "\"Pat Leader\" <leader@example.edu>, co@example.edu")
        #expect(mail.raw("MIME-Version") == "1.0")
        #expect(mail.raw("Content-Type") == "text/plain; charset=UTF-8")
        #expect(mail.raw("Content-Transfer-Encoding") == "quoted-printable")
        #expect(mail.raw("X-Crubatch-Notification") == "42")
    }

    @Test("the Date header is Foundation's en_US_POSIX rendering in UTC, before 1970, on leap days and at a second's end too")
    func datesAgreeWithFoundation() throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        let seconds: [Double] = [0, -1, -86_400.5, 951_782_399.999, 1_709_251_199, 1_741_097_109, 4_107_542_400,
                                 -2_208_988_800]
            + (0..<400).map { Double($0) * 7_919_999.7 - 1_000_000_000 }
        for value in seconds {
            let date = Date(timeIntervalSince1970: value)
            #expect(MailEncoding.rfc5322Date(date) == formatter.string(from: date), "\(value)")
        }
    }

    @Test func everyLineEndsWithCRLFAndIsShort() throws {
        let long = String(repeating: "Zoë loves long lines without breaks. ", count: 60)
        let bytes = Self.message(subject: long, body: long + "\n\r\nsecond\rthird").rendered()
        let lines = try #require(crlfLines(bytes), "a bare CR or LF in the rendered message")
        #expect(bytes.suffix(2) == [13, 10])
        #expect(lines.allSatisfy { $0.count <= 78 }, "a line is longer than 78 octets")
        #expect(lines.contains { $0.isEmpty }, "no blank line between headers and body")
    }

    @Test func nonASCIISubjectIsAnEncodedWord() {
        let bytes = Self.message().rendered()
        let text = String(decoding: bytes, as: UTF8.self)
        let encoded = "=?UTF-8?B?" + Data("Zoë joined Tuesday Men's Group".utf8).base64EncodedString() + "?="
        #expect(text.contains("\r\nSubject: \(encoded)\r\n"))
        #expect(bytes.firstIndex { $0 >= 0x80 } == nil, "the message is not 7-bit")
        #expect(ParsedMail(bytes).header("Subject") == "Zoë joined Tuesday Men's Group")
    }

    @Test func longNonASCIISubjectIsSplitIntoWholeCharacterWords() throws {
        let subject = String(repeating: "Zoë ✝︎ 🙏🏽 日本語 ", count: 12)
        let mail = ParsedMail(Self.message(subject: subject).rendered())
        let raw = try #require(mail.raw("Subject"))
        let words = raw.split(separator: " ")
        #expect(words.count > 1)
        #expect(words.allSatisfy { $0.hasPrefix("=?UTF-8?B?") && $0.hasSuffix("?=") && $0.count <= 75 })
        for word in words { // each word decodes on its own: no character is cut in two
            let data = try #require(Data(base64Encoded: String(word.dropFirst(10).dropLast(2))))
            #expect(String(data: data, encoding: .utf8) != nil)
        }
        #expect(mail.header("Subject") == subject)
    }

    @Test func asciiSubjectStaysReadable() {
        let mail = ParsedMail(Self.message(subject: "New member: Pat joined Bible Study").rendered())
        #expect(mail.raw("Subject") == "New member: Pat joined Bible Study")
    }

    @Test func headerInjectionIsNeutralised() {
        let mail = ParsedMail(Self.message(subject: "Hi\r\nBcc: victim@example.com",
                                           extraHeaders: [("X-Note", "a\nBcc: other@example.com")]).rendered())
        #expect(!mail.headers.contains { $0.0.lowercased() == "bcc" })
        #expect(mail.header("Subject") == "Hi  Bcc: victim@example.com")
    }

    @Test func extraHeadersCannotDuplicateStandardOnes() {
        let mail = ParsedMail(Self.message(extraHeaders: [("Subject", "other"), ("Reply-To", "pat@example.edu"),
                                                          ("X-Zoë", "Zoë")]).rendered())
        #expect(mail.headers.filter { $0.0 == "Subject" }.count == 1)
        #expect(mail.raw("Reply-To") == nil, "Reply-To is the message's own header")
        #expect(mail.header("X-Zo") == "Zoë", "a non-ASCII header name is reduced to ASCII, its value encoded")
    }

    @Test func replyToIsAnAddressHeaderAfterTo() throws {
        var message = Self.message()
        message.replyTo = [EmailAddress("zoe@example.edu", name: "Zoë Park")]
        let mail = ParsedMail(message.rendered())
        #expect(mail.headers.map(\.0).prefix(5) == ["Date", "From", "To", "Reply-To", "Subject"])
        #expect(mail.raw("Reply-To") == "=?UTF-8?B?" + Data("Zoë Park".utf8).base64EncodedString() + "?= <zoe@example.edu>")
        #expect(message.readable.contains("\nReply-To: Zoë Park <zoe@example.edu>\n"))
    }

    @Test func messageIDIsInAngleBrackets() {
        #expect(ParsedMail(Self.message().rendered()).raw("Message-ID") == "<notification-42@crubatch>")
        var message = Self.message()
        message.messageID = "<digest-7@crubatch>"
        #expect(ParsedMail(message.rendered()).raw("Message-ID") == "<digest-7@crubatch>")
    }

    @Test func quotedPrintableBodyDecodesToTheOriginal() throws {
        let body = """
        Hi Pat,

        Zoë Park (zoe@example.edu, +1 555 0100, sophomore) joined Tuesday Men's Group — 🙏🏽.
        .a line starting with a dot
        From the start of a line
        equals = signs, trailing spaces   
        tab at end\t
        \(String(repeating: "ü", count: 100))\(String(repeating: "x", count: 200))
        """
        let bytes = Self.message(body: body).rendered()
        let mail = ParsedMail(bytes)
        #expect(mail.body == body + "\n")
        let lines = try #require(crlfLines(bytes))
        let bodyLines = lines.drop { !$0.isEmpty }.dropFirst()
        #expect(bodyLines.allSatisfy { $0.count <= 76 })
        #expect(bodyLines.allSatisfy { $0.last != 0x20 && $0.last != 0x09 }, "trailing white space survives")
        #expect(!bodyLines.contains { $0.first == 0x2E }, "a body line starts with a dot")
        #expect(bodyLines.allSatisfy { $0.allSatisfy { $0 < 0x80 } })
    }

    @Test func lineBreaksOfAnyKindBecomeCRLF() {
        let mail = ParsedMail(Self.message(body: "one\r\ntwo\rthree\nfour").rendered())
        #expect(mail.body == "one\ntwo\nthree\nfour\n")
        #expect(ParsedMail(Self.message(body: "").rendered()).body == "")
    }

    @Test func addressesRenderAndParse() throws {
        #expect(EmailAddress("pat@example.edu").rendered == "pat@example.edu")
        #expect(EmailAddress(name: "Pat \"PJ\" Lee", address: "pat@example.edu").rendered
                == "\"Pat \\\"PJ\\\" Lee\" <pat@example.edu>")
        #expect(EmailAddress("zoe@example.edu", name: "Zoë Park").rendered
                == "=?UTF-8?B?" + Data("Zoë Park".utf8).base64EncodedString() + "?= <zoe@example.edu>")
        #expect(EmailAddress("zoe@example.edu", name: "Zoë Park").description == "Zoë Park <zoe@example.edu>")

        #expect(try EmailAddress.parse("Pat Lee <pat@example.edu>") == EmailAddress("pat@example.edu", name: "Pat Lee"))
        #expect(try EmailAddress.parse("  pat@example.edu ") == EmailAddress("pat@example.edu"))
        #expect(try EmailAddress.parse("<pat@example.edu>") == EmailAddress("pat@example.edu"))
        #expect(try EmailAddress.parse("\"Lee, Pat \\\"PJ\\\"\" <pat@example.edu>")
                == EmailAddress("pat@example.edu", name: "Lee, Pat \"PJ\""))
        #expect(try EmailAddress.parse("Zoë <zoe@example.edu>").name == "Zoë")
        for bad in ["", "pat", "@example.edu", "pat@", "pat @example.edu", "Pat <pat@example.edu", "a@b>\r\nX: y"] {
            #expect(throws: MailError.self, "\(bad)") { try EmailAddress.parse(bad) }
        }
        let error = try #require(throws: MailError.self) { try EmailAddress.parse("nobody") }
        #expect(error.scope == .configuration)
        #expect(error.message.contains("nobody"))
    }
}
