import CruBatchTestSupport
import Foundation
import Testing
@testable import Mailer

@Suite("Sending over SMTP")
struct SMTPTests {
    @Test func sendsThreeMessagesThroughOneTransportToTheSink() throws {
        let transport = try SMTPTransport(url: try MailSink.url())
        let mailbox = try MailSink.mailbox()
        let run = uniqueName("run")
        let from = EmailAddress("noreply@crubatch.test", name: "Cru Batch")
        var sent: [EmailMessage] = []
        for index in 1...3 {
            let leader = EmailAddress("leader\(index)@example.edu", name: index == 2 ? "Zoë Leader" : "Pat Leader \(index)")
            let message = EmailMessage(
                from: from, to: [leader], subject: "Zoë joined Tuesday Men's Group (\(index))",
                body: """
                Hi \(leader.name!),

                Zoë Park joined Tuesday Men's Group — message \(index) of run \(run).
                .A line starting with a dot.
                \(String(repeating: "long line ", count: 30))
                """,
                messageID: "test-\(run)-\(index)@crubatch",
                extraHeaders: [("X-Crubatch-Test", run)])
            try transport.send(message)
            sent.append(message)
        }
        for message in sent {
            let stored = try #require(try MailSink.message(withID: message.messageID),
                                      "message \(message.messageID) not found in \(mailbox)")
            #expect(stored.header("Subject") == message.subject)
            #expect(stored.raw("To") == message.to[0].rendered)
            #expect(decodeEncodedWords(stored.raw("To") ?? "").contains(message.to[0].name!))
            #expect(stored.body == message.body + "\n")
            #expect(stored.raw("X-Crubatch-Test") == run)
            #expect(stored.raw("X-MailFrom") == "noreply@crubatch.test")
            #expect(stored.raw("X-RcptTo") == message.to[0].address)
        }
    }

    @Test func oneMessageToSeveralRecipients() throws {
        let transport = try SMTPTransport(url: try MailSink.url())
        let id = "\(uniqueName("multi"))@crubatch"
        let message = EmailMessage(from: EmailAddress("noreply@crubatch.test"),
                                   to: [EmailAddress("a@example.edu"), EmailAddress("b@example.edu", name: "B")],
                                   subject: "Two leaders", body: "Both of you.", messageID: id)
        try transport.send(message)
        let stored = try #require(try MailSink.message(withID: id))
        #expect(stored.raw("X-RcptTo") == "a@example.edu, b@example.edu")
        #expect(stored.raw("To") == "a@example.edu, \"B\" <b@example.edu>")
        #expect(stored.body == "Both of you.\n")
    }

    @Test func unreachableServerIsASessionFailureQuicklyAndHidesThePassword() throws {
        let transport = try SMTPTransport(url: "smtp://pat:hunter2@127.0.0.1:1?connect_timeout=3")
        let started = Date()
        let error = try #require(throws: MailError.self) { try transport.send(Self.message()) }
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(error.scope == .session)
        #expect(error.step == .connect)
        #expect(error.curlCode == 7) // CURLE_COULDNT_CONNECT
        #expect(!error.isPermanent)
        #expect(!error.message.contains("hunter2") && !error.description.contains("hunter2"))
        #expect(error.message.contains("pat:***@127.0.0.1:1"))
    }

    @Test func authenticatesWithPercentDecodedCredentials() throws {
        let server = try FaultySMTPServer(credentials: (user: "leader@cru.org", password: "p@ss:w rd"))
        try SMTPTransport(url: server.url(userInfo: "leader%40cru.org:p%40ss%3Aw%20rd@")).send(Self.message())
        #expect(server.logins.map(\.user) == ["leader@cru.org"])
        #expect(server.logins.map(\.password) == ["p@ss:w rd"])
        #expect(server.commands.contains("MAIL FROM:<noreply@crubatch.test>"))
        #expect(server.commands.contains("RCPT TO:<leader@example.edu>"))
        #expect(server.acceptedMessages.count == 1)
    }

    @Test func requiredTLSFailsWhenTheServerOffersNoSTARTTLS() throws {
        let server = try FaultySMTPServer()
        let error = try #require(throws: MailError.self) {
            try SMTPTransport(url: server.url(query: "?tls=require")).send(Self.message())
        }
        #expect(error.scope == .session)
        #expect(error.curlCode == 64) // CURLE_USE_SSL_FAILED
        #expect(server.acceptedMessages.isEmpty)
    }

    @Test func invalidMessagesAreRefusedBeforeConnecting() throws {
        let transport = try SMTPTransport(url: "smtp://127.0.0.1:1")
        var message = Self.message()
        message.to = []
        #expect(throws: MailError.self) { try transport.send(message) }
        message.to = [EmailAddress("not an address")]
        let error = try #require(throws: MailError.self) { try transport.send(message) }
        #expect(error.scope == .message && error.isPermanent && error.curlCode == 0 && error.step == nil)
    }

    static func message() -> EmailMessage {
        EmailMessage(from: EmailAddress("noreply@crubatch.test"), to: [EmailAddress("leader@example.edu")],
                     subject: "Test", body: "Hello.", messageID: "fake-1@crubatch")
    }
}

@Suite("Previewing on standard output")
struct StdoutTransportTests {
    @Test func writesEachReadableMessageSeparatedByALine() throws {
        let sink = ByteSink()
        let transport = StdoutTransport { sink.append($0) }
        let first = EmailMessage(from: EmailAddress("noreply@crubatch.test"), to: [EmailAddress("a@example.edu")],
                                 subject: "Zoë joined", body: "First.", messageID: "one@crubatch")
        var second = first
        second.messageID = "two@crubatch"
        second.body = "Second."
        try transport.send(first)
        #expect(sink.bytes == Array(first.readable.utf8))
        try transport.send(second)
        #expect(sink.bytes == Array((first.readable + StdoutTransport.separator + "\n" + second.readable).utf8))
        let text = String(decoding: sink.bytes, as: UTF8.self)
        #expect(text.contains("Subject: Zoë joined\n"), "the subject is decoded")
        #expect(!text.contains("=?UTF-8?") && !text.contains("\r"))
        #expect(transport.sentCount == 2)
    }

    @Test func writesToAFileHandle() throws {
        try withScratchDirectory { directory in
            let path = directory + "/message.eml"
            #expect(FileManager.default.createFile(atPath: path, contents: nil))
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            let message = RenderingTests.message()
            try StdoutTransport(fileHandle: handle).send(message)
            try handle.close()
            #expect(FileManager.default.contents(atPath: path) == Data(message.readable.utf8))
        }
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/full")))
    func aMessageThatCannotBeWrittenIsAFailedSendNotACrash() throws {
        let handle = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        defer { try? handle.close() }
        let transport = StdoutTransport(fileHandle: handle)
        #expect(throws: MailError.self) { try transport.send(RenderingTests.message()) }
        do {
            try transport.send(RenderingTests.message())
        } catch {
            #expect(error.scope == .session)
            #expect(error.message.hasSuffix("cannot write: No space left on device"), "\(error.message)")
        }
        #expect(transport.sentCount == 0)
    }
}
