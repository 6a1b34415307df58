import CLibCurl
import CruBatchTestSupport
import Foundation
import Testing
@testable import Mailer

/// What a failure is about, against scripts/faulty-smtp: a refusal of one message lets the next
/// one go, anything about the session, the login or the server stops the batch; and no call
/// outlives the timeout by more than the closing grace.
@Suite("SMTP faults")
struct SMTPFaultTests {
    static let noSuchUser = "550 5.1.1 <reject@example.edu>: no such user"

    @Test func refusedRecipientConcernsThatMessageOnly() throws {
        let server = try FaultySMTPServer([.init(.rcpt, containing: "reject", .reply(Self.noSuchUser))])
        let transport = try SMTPTransport(url: server.url())
        let error = try #require(throws: MailError.self) { try transport.send(Self.message(to: "reject@example.edu")) }
        #expect(error.scope == .message)
        #expect(error.isPermanent)
        #expect(error.step == .recipient)
        #expect(error.responseCode == 550)
        #expect(error.message.contains("refused a recipient (RCPT TO)"))
        #expect(error.message.contains("no such user"))

        try transport.send(Self.message(id: "next"))
        #expect(server.acceptedMessages.count == 1)
        #expect(server.acceptedMessages.first?.contains("Message-ID: <next@crubatch>") == true)
    }

    @Test func temporaryRecipientRefusalConcernsThatMessageAndIsNotPermanent() throws {
        let server = try FaultySMTPServer([.init(.rcpt, containing: "reject", .reply("450 4.2.1 mailbox busy, try later"))])
        var message = Self.message()
        message.to = [EmailAddress("ok@example.edu"), EmailAddress("reject@example.edu")]
        let error = try #require(throws: MailError.self) { try SMTPTransport(url: server.url()).send(message) }
        #expect(error.scope == .message)
        #expect(!error.isPermanent)
        #expect(error.responseCode == 450)
        #expect(server.acceptedMessages.isEmpty)
    }

    @Test func refusedContentConcernsThatMessageAndKeepsTheConnection() throws {
        let server = try FaultySMTPServer([.init(.endOfData, message: 1, .reply("554 5.7.1 message refused as spam"))])
        let transport = try SMTPTransport(url: server.url())
        let error = try #require(throws: MailError.self) { try transport.send(Self.message(id: "spam")) }
        #expect(error.scope == .message)
        #expect(error.isPermanent)
        #expect(error.step == .content)
        try transport.send(Self.message(id: "fine"))
        #expect(server.acceptedMessages.count == 1)
        #expect(server.connectionCount == 1)
    }

    @Test func wrongPasswordIsACredentialsFailureWithoutShowingIt() throws {
        let server = try FaultySMTPServer(credentials: (user: "leader", password: "right"))
        let error = try #require(throws: MailError.self) {
            try SMTPTransport(url: server.url(userInfo: "leader:wr0ng-secret@")).send(Self.message())
        }
        #expect(error.scope == .credentials)
        #expect(!error.isPermanent) // says nothing about the message
        #expect(error.step == .authentication)
        #expect(error.responseCode == 535)
        #expect(error.curlCode == 67) // CURLE_LOGIN_DENIED
        #expect(!error.description.contains("wr0ng-secret"))
        #expect(server.logins.map(\.password) == ["wr0ng-secret"])
        #expect(server.acceptedMessages.isEmpty)
    }

    @Test func missingLoginIsACredentialsFailure() throws {
        let server = try FaultySMTPServer([.init(.mail, .reply("530 5.7.0 Authentication required"))])
        let error = try #require(throws: MailError.self) { try SMTPTransport(url: server.url()).send(Self.message()) }
        #expect(error.scope == .credentials)
        #expect(error.step == .sender)
        #expect(error.responseCode == 530)
    }

    @Test(arguments: [FaultySMTPServer.Step.greeting, .ehlo, .mail, .rcpt, .data, .endOfData])
    func serverClosingIsASessionFailure(step: FaultySMTPServer.Step) throws {
        let server = try FaultySMTPServer([.init(step, .reply("421 4.3.2 Service shutting down"))])
        let error = try #require(throws: MailError.self) { try SMTPTransport(url: server.url()).send(Self.message()) }
        #expect(error.scope == .session)
        #expect(!error.isPermanent)
        #expect(error.responseCode == 421)
        #expect(error.message.contains("Service shutting down"))
        #expect(server.acceptedMessages.isEmpty)
    }

    @Test(arguments: [
        (FaultySMTPServer.Step.ehlo, "550 5.7.1 EHLO refused"),
        (.mail, "553 5.7.1 sender not allowed"),
        (.rcpt, "452 4.3.1 Insufficient system storage"),
        (.endOfData, "550 5.4.5 Daily user sending quota exceeded"),
        (.rcpt, "503 5.5.1 bad sequence of commands"),
    ])
    func serverOrSenderRefusalIsASessionFailure(step: FaultySMTPServer.Step, reply: String) throws {
        let server = try FaultySMTPServer([.init(step, .reply(reply))])
        let error = try #require(throws: MailError.self) { try SMTPTransport(url: server.url()).send(Self.message()) }
        #expect(error.scope == .session, "\(error)")
        #expect(!error.isPermanent)
        #expect(error.message.contains(reply))
    }

    @Test(arguments: [FaultySMTPServer.Step.greeting, .ehlo, .mail, .rcpt, .data, .endOfData])
    func droppedConnectionIsASessionFailure(step: FaultySMTPServer.Step) throws {
        let server = try FaultySMTPServer([.init(step, .drop)])
        let started = Date()
        let error = try #require(throws: MailError.self) { try SMTPTransport(url: server.url()).send(Self.message()) }
        #expect(Date().timeIntervalSince(started) < 2)
        #expect(error.scope == .session, "\(error)")
        #expect(!error.isPermanent)
        #expect(server.acceptedMessages.isEmpty)
    }

    @Test func silentGreetingTimesOut() throws {
        let server = try FaultySMTPServer([.init(.greeting, .silence)])
        let transport = try SMTPTransport(url: server.url(query: "?timeout=1"))
        let started = Date()
        let error = try #require(throws: MailError.self) { try transport.send(Self.message()) }
        #expect(Date().timeIntervalSince(started) < 1 + Self.schedulingSlack)
        #expect(error.scope == .session)
        #expect(error.step == .greeting)
        #expect(error.curlCode == 28) // CURLE_OPERATION_TIMEDOUT
    }

    @Test func silenceAfterTheDataTimesOutAndClosingDoesNotWaitForIt() throws {
        let server = try FaultySMTPServer([.init(.endOfData, .silence)])
        var transport: SMTPTransport? = try SMTPTransport(url: server.url(query: "?timeout=2"))
        let started = Date()
        let error = try #require(throws: MailError.self) { try transport?.send(Self.message()) }
        let sending = Date().timeIntervalSince(started)
        #expect(sending >= 1.9 && sending < 2 + Self.schedulingSlack, "the send took \(sending) s")
        #expect(error.scope == .session)
        #expect(error.step == .content)
        #expect(error.curlCode == 28) // CURLE_OPERATION_TIMEDOUT
        #expect(server.events.contains { $0.event == "message" })

        let closing = Date()
        transport = nil
        #expect(Date().timeIntervalSince(closing) < SMTPTransport.closingGrace + Self.schedulingSlack)
    }

    @Test func closingWaitsForQUITAtMostTheGrace() throws {
        let server = try FaultySMTPServer([.init(.quit, .silence)])
        var transport: SMTPTransport? = try SMTPTransport(url: server.url())
        try transport?.send(Self.message())
        let closing = Date()
        transport = nil
        let elapsed = Date().timeIntervalSince(closing)
        #expect(elapsed >= SMTPTransport.closingGrace - 0.1 && elapsed < SMTPTransport.closingGrace + Self.schedulingSlack,
                "closing took \(elapsed) s")
        #expect(server.commands.last == "QUIT")
    }

    @Test func timedOutConnectionIsNotReused() throws {
        let server = try FaultySMTPServer([.init(.endOfData, message: 1, .silence)])
        let transport = try SMTPTransport(url: server.url(query: "?timeout=1"))
        #expect(throws: MailError.self) { try transport.send(Self.message(id: "lost")) }
        try transport.send(Self.message(id: "second"))
        #expect(server.connectionCount == 2)
        let first = server.events.filter { $0.connection == 1 && $0.event == "command" }.compactMap(\.step)
        #expect(first == ["ehlo", "mail", "rcpt", "data"])
        #expect(server.acceptedMessages.count == 1)
    }

    @Test func messagesShareOneConnection() throws {
        let server = try FaultySMTPServer()
        var transport: SMTPTransport? = try SMTPTransport(url: server.url())
        for index in 1...5 {
            try transport?.send(Self.message(id: "shared-\(index)"))
        }
        transport = nil
        #expect(server.connectionCount == 1)
        #expect(server.acceptedMessages.count == 5)
        #expect(server.commands.filter { $0.hasPrefix("EHLO") }.count == 1)
        #expect(server.commands.last == "QUIT")
    }

    /// How late a wait may end on a machine busy with the rest of the suite; still far below the
    /// timeouts a missing bound would wait for.
    static let schedulingSlack = 2.0

    static func message(to recipient: String = "leader@example.edu", id: String = "fault-1") -> EmailMessage {
        EmailMessage(from: EmailAddress("noreply@crubatch.test"), to: [EmailAddress(recipient)],
                     subject: "Test", body: "Hello.", messageID: "\(id)@crubatch")
    }
}

/// The rules that decide what a failure is about, one reply at a time.
@Suite("Judging SMTP failures")
struct SMTPFailureJudgementTests {
    /// A failed send: libcurl's result, the server's last error reply (answering the step the
    /// send failed at), and what the failure should be judged to be about.
    struct Case: Sendable, CustomTestStringConvertible {
        let curlCode: CURLcode
        let reply: String?
        let step: SMTPStep
        let scope: MailError.Scope
        var permanent = false

        var testDescription: String { "\(reply ?? "curl \(curlCode.rawValue)") at \(step)" }
    }

    @Test(arguments: [
        Case(curlCode: CURLE_SEND_ERROR, reply: "550 5.1.1 no such user", step: .recipient, scope: .message, permanent: true),
        Case(curlCode: CURLE_SEND_ERROR, reply: "554 5.7.1 relay access denied", step: .recipient, scope: .message, permanent: true),
        Case(curlCode: CURLE_SEND_ERROR, reply: "452 4.2.2 mailbox full", step: .recipient, scope: .message),
        Case(curlCode: CURLE_SEND_ERROR, reply: "451 4.7.1 greylisted, try later", step: .recipient, scope: .message),
        Case(curlCode: CURLE_WEIRD_SERVER_REPLY, reply: "552 5.3.4 message too big", step: .content, scope: .message, permanent: true),
        Case(curlCode: CURLE_WEIRD_SERVER_REPLY, reply: "550 5.4.5 Daily user sending quota exceeded", step: .content, scope: .session),
        Case(curlCode: CURLE_SEND_ERROR, reply: "452 4.3.1 Insufficient system storage", step: .recipient, scope: .session),
        Case(curlCode: CURLE_SEND_ERROR, reply: "421 4.7.0 too many errors", step: .recipient, scope: .session),
        Case(curlCode: CURLE_SEND_ERROR, reply: "501 5.5.2 syntax error", step: .data, scope: .session),
        Case(curlCode: CURLE_SEND_ERROR, reply: "553 5.7.1 sender refused", step: .sender, scope: .session),
        Case(curlCode: CURLE_SEND_ERROR, reply: "530 5.7.0 Authentication required", step: .sender, scope: .credentials),
        Case(curlCode: CURLE_LOGIN_DENIED, reply: "535 5.7.8 Authentication credentials invalid", step: .authentication, scope: .credentials),
        Case(curlCode: CURLE_LOGIN_DENIED, reply: "534 5.7.9 Please log in with your web browser", step: .authentication, scope: .credentials),
        Case(curlCode: CURLE_LOGIN_DENIED, reply: "454 4.7.0 Temporary authentication failure", step: .authentication, scope: .session),
        Case(curlCode: CURLE_REMOTE_ACCESS_DENIED, reply: "554 5.7.1 go away", step: .hello, scope: .session),
        Case(curlCode: CURLE_OPERATION_TIMEDOUT, reply: nil, step: .content, scope: .session),
        Case(curlCode: CURLE_RECV_ERROR, reply: nil, step: .recipient, scope: .session),
        Case(curlCode: CURLE_COULDNT_CONNECT, reply: nil, step: .connect, scope: .session),
        Case(curlCode: CURLE_SSL_CONNECT_ERROR, reply: nil, step: .startTLS, scope: .session),
        Case(curlCode: CURLE_LOGIN_DENIED, reply: nil, step: .authentication, scope: .credentials),
        Case(curlCode: CURLE_URL_MALFORMAT, reply: nil, step: .connect, scope: .configuration),
    ])
    func judges(_ failure: Case) throws {
        let reply = try failure.reply.map { try #require(SMTPReply(Substring($0), step: failure.step)) }
        let judgement = SMTPFailureJudgement(curlCode: failure.curlCode, reply: reply, step: failure.step)
        #expect(judgement.scope == failure.scope)
        #expect(judgement.isPermanent == failure.permanent)
    }

    @Test func enhancedStatusIsReadOnlyWhenItMatchesTheCode() throws {
        let quota = try #require(SMTPReply("550 5.4.5 quota", step: .content)?.enhancedStatus)
        #expect(quota.subject == 4 && quota.detail == 5)
        #expect(try #require(SMTPReply("550 4.4.5 odd", step: .content)).enhancedStatus == nil)
        #expect(try #require(SMTPReply("550 no such user", step: .recipient)).enhancedStatus == nil)
        #expect(SMTPReply("hello", step: .greeting) == nil)
    }
}
