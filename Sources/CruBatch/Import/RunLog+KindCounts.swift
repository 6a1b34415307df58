extension RunLog.Counts {
    /// An import's counts, as its run records them.
    init(_ counts: KindCounts) {
        self.init(read: counts.read, inserted: counts.inserted, updated: counts.updated, restored: counts.restored,
                  unchanged: counts.unchanged, archived: counts.archived, rejected: counts.rejected)
    }
}
