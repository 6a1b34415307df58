extension Migration {
    /// A person's phone is checked as before (`+`, then 7 to 15 digits, the first not 0, then
    /// perhaps `;ext=` and digits), but the count of digits is a length, not a bounded repeat
    /// (`{6,14}`) in the pattern: PostgreSQL's regular expressions run that repeat as many states,
    /// which took 2.4 s of checks per million people inserted, against 1.1 s for the pattern without
    /// it and the length beside it. The part before the first `;` is the `+` and the digits.
    static let phoneCheckWithoutBoundedRepeat = Migration(version: 35, name: "phone check without a bounded repeat", sql: #"""
    alter table people drop constraint people_phone_check,
        add constraint people_phone_check
        check (phone ~ '^\+[1-9][0-9]*(;ext=[0-9]+)?$' and length(split_part(phone, ';', 1)) between 8 and 16);
    """#)
}
