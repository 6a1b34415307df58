extension Migration {
    /// A URL unchanged since its last import is skipped only while the tables its kind reads and
    /// writes are as that import left them (`KindTablesState`): each source keeps that state. A
    /// source recorded before has none, so it loads once more and records it.
    static let sourcesTablesState = Migration(version: 32, name: "sources remember the tables' state", sql: """
    alter table sources add column tables_state text;
    """)
}
