import PostgresClient

/// `crubatch rides cancel --offer ID | --request ID`: the status change an import of status
/// `cancelled` makes, for one offer or request. The database then ends the offer's or request's
/// active pairings (migration 9's triggers): an offer's passengers wait for a ride again, a
/// request's seat is free again. The change is a run (kind `rides-cancel`) in the change log, so
/// `runs show` lists it and `undo` takes it back.
public struct RideCancellation {
    /// What to cancel: a ride offer or a ride request, by id.
    public enum Target: Sendable, Equatable {
        case offer(Int)
        case request(Int)

        var id: Int {
            switch self {
            case .offer(let id), .request(let id): id
            }
        }

        /// `offer`, `request`: in messages, and as the run's file name (`offer 12`).
        var noun: String {
            switch self {
            case .offer: "offer"
            case .request: "request"
            }
        }

        /// Its table: `ride_offers`, `ride_requests`.
        var table: String { "ride_\(noun)s" }

        /// The pairings' column naming it: `offer_id`, `request_id`.
        var pairingColumn: String { "\(noun)_id" }
    }

    /// What a cancellation did: the pairings it ended and the requests that wait for a ride again.
    public struct Report: Sendable, CommandReport {
        public let kind: String
        public let id: Int
        public let event: String
        /// The run that recorded it; nil when it was cancelled already and nothing changed.
        public let runId: Int?
        public let alreadyCancelled: Bool
        public let pairingsEnded: Int
        /// The requests whose pairing ended, each waiting (pending) for a ride again on that leg; for a
        /// cancelled request, none.
        public let requestsWaiting: [Int]
        /// The messages the ended pairings queued (`ride-cancelled`, `seat-freed`).
        public let messagesQueued: Int
        /// `--no-notify`: those messages are recorded as suppressed, never sent.
        public let messagesSuppressed: Bool

        public var text: String {
            let what = "ride \(kind) \(id) (\(event))"
            if alreadyCancelled { return "\(what) was cancelled already; nothing changed" }
            var text = "cancelled \(what) (run \(runId ?? 0)): \(pairingsEnded) pairing\(pairingsEnded == 1 ? "" : "s") ended"
            if !requestsWaiting.isEmpty {
                text += "; request\(requestsWaiting.count == 1 ? "" : "s") "
                    + requestsWaiting.map(String.init).joined(separator: ", ")
                    + (requestsWaiting.count == 1 ? " waits" : " wait") + " for a ride again"
            }
            if messagesQueued > 0 {
                text += "; \(messagesQueued) message\(messagesQueued == 1 ? "" : "s") "
                    + (messagesSuppressed ? "recorded as suppressed (--no-notify)" : "queued")
            }
            return text
        }
    }

    let connection: PostgresConnection

    public init(connection: PostgresConnection) {
        self.connection = connection
    }

    /// Cancels `target`; with `messages.notify` false the messages it queues are recorded as suppressed.
    public func cancel(_ target: Target, messages: JoinMessages = JoinMessages()) throws -> Report {
        try Migrator(connection: connection).requireCurrent()
        try connection.execute("set time zone 'UTC'")
        guard let row = try connection.query("""
            select r.status, e.code from \(identifier: target.table) r join events e on e.id = r.event_id where r.id = \(target.id)
            """).rows.first else {
            throw CruBatchError.usage("there is no ride \(target.noun) \(target.id) (see `crubatch export rides --event CODE`)")
        }
        let event = try row.decode(String.self, 1)
        let cancelled = KindCatalog.rideCancelled
        guard try row.decode(String.self, 0) != "cancelled" else {
            return Report(kind: target.noun, id: target.id, event: event, runId: nil, alreadyCancelled: true,
                          pairingsEnded: 0, requestsWaiting: [], messagesQueued: 0, messagesSuppressed: false)
        }
        let run = WriterRun(
            connection: connection, kind: .ridesCancel, file: "\(target.noun) \(target.id)",
            locks: .writers([.rideOffers, .rideRequests], against: "an import of ride offers or requests"))
        var ended: [Int] = []
        var queued = 0
        let runID = try run.perform { _ in
            try messages.apply(on: connection)
            try connection.query("""
                update \(identifier: target.table) r set \(unescaped: cancelled.retire)
                where r.id = \(target.id) and \(unescaped: cancelled.isCurrent(over: "r"))
                """)
            // The triggers ended the pairings in this transaction, so at its now().
            ended = try connection.query("""
                select request_id from ride_pairings
                where \(identifier: target.pairingColumn) = \(target.id) and ended_at = now() order by request_id, leg
                """).rows.map { try $0.decode(Int.self, 0) }
            queued = try connection.query("""
                select count(*) from notifications n join ride_pairings p on p.id = n.ride_pairing_id
                where p.\(identifier: target.pairingColumn) = \(target.id) and p.ended_at = now() and n.created_at = now()
                """).scalar(Int.self)
        }.ids[0]
        try run.log.finish(runID, status: .succeeded, counts: RunLog.Counts(read: 1, updated: ended.count, archived: 1))
        var waiting: [Int] = []
        if case .offer = target {
            for request in ended where !waiting.contains(request) { waiting.append(request) }
        }
        return Report(kind: target.noun, id: target.id, event: event, runId: runID, alreadyCancelled: false,
                      pairingsEnded: ended.count, requestsWaiting: waiting, messagesQueued: queued,
                      messagesSuppressed: !messages.notify)
    }
}
