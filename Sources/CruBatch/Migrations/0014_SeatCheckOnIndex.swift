extension Migration {
    /// The seat check on ride pairings counts a car's riders through the index, whoever inserts: when
    /// the statistics say `ride_pairings` is (nearly) empty, as on a new table or after a vacuum,
    /// its count scanned the table per inserted row, which one big insert grows (13,000 pairings took
    /// 5 s instead of 0.3 s). The same setting keeps the group capacity check on its index.
    static let seatCheckOnIndex = Migration(version: 14, name: "seat check counts through its index", sql: """
    alter function check_ride_pairing() set enable_seqscan = off;
    """)
}
