/// The outbox's references to other tables, which its triggers check and apply in place of foreign
/// keys (migration 26): the column, the table and key it names, and what a delete there does. A
/// migration that gives the outbox a new reference adds it here and creates its triggers as
/// migration 26 did (`notifications_COLUMN_on_delete`, `notifications_COLUMN_on_key_update`, and the
/// column among `check_references`' arguments); a test checks the schema against this list.
enum OutboxReferences {
    struct Reference: Sendable {
        let column: String
        let table: String
        let key: String
        let onDelete: String
    }

    static let all: [Reference] = [
        Reference(column: "kind", table: "notification_kinds", key: "kind", onDelete: "no action"),
        Reference(column: "membership_id", table: "memberships", key: "id", onDelete: "set null"),
        Reference(column: "recipient_id", table: "people", key: "id", onDelete: "cascade"),
        Reference(column: "ride_pairing_id", table: "ride_pairings", key: "id", onDelete: "set null"),
        Reference(column: "attendance_id", table: "attendance", key: "id", onDelete: "set null"),
        Reference(column: "ministry_id", table: "ministries", key: "id", onDelete: "cascade"),
    ]
}
