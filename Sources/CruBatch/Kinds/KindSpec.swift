/// A reference from a column to another kind's natural key, checked against the database (which,
/// inside one load, already holds the kinds loaded before).
struct ReferenceSpec: Sendable {
    /// The CSV column holding the key (a list column references each of its values).
    let column: String
    let table: String
    /// SQL for the referenced key of row `r`, e.g. `r.code` or `lower(r.email)`.
    let keyExpression: String
    /// Extra condition on the referenced row (e.g. `r.is_leader`).
    var condition: String = "true"
    /// What the referenced thing is called in messages ("ministry", "leader").
    let noun: String
    /// The file that defines the referenced rows, for the hint.
    let definedIn: Kind
}

/// A `;` list cell stored as child rows (a group's leaders, a student's ministries, a resource's topics).
struct ListRelation: Sendable {
    let column: String
    let childTable: String
    let parentColumn: String
    /// The child's value column (`person_id`, `ministry_id`, or `topic` for plain values).
    let valueColumn: String
    /// For references: the referenced table and its key expression over alias `r`; nil for plain values.
    let referencedTable: String?
    let referencedKey: String
}

/// A column of the target table written by the merge.
struct TargetColumn: Sendable {
    let name: String
    /// SQL default used on insert when the cell is blank (nil: NULL).
    var insertDefault: String?
    /// False for columns only set when a row is inserted (e.g. a membership's source).
    var updatable = true
}

/// Everything the importer and exporter need to know about one kind.
struct KindSpec: Sendable {
    let kind: Kind
    let columns: [ColumnSpec]
    let table: String
    /// Target key columns, and how a target row `t` matches a resolved row `n`.
    let keyColumns: [String]
    let keyMatch: String
    /// The key's display form for duplicate messages, as SQL over the staging row `s`.
    let stagedKey: String
    /// SELECT over the staging table `stage s` giving `line` + the key columns + `targetColumns`.
    let resolveSQL: String
    let targetColumns: [TargetColumn]
    let references: [ReferenceSpec]
    let lists: [ListRelation]
    /// A query whose rows are exactly the CSV `import` reads (header = canonical column names).
    let exportSQL: String

    var requiredColumns: [ColumnSpec] { columns.filter(\.required) }

    static func of(_ kind: Kind) -> KindSpec { KindCatalog.specs[kind]! }
}
