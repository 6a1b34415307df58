/// A whole name as one cell holds it (a Google Form's "Full Name", a sheet's "Contact Name") split
/// into first and last name, by the rules people read names with:
///
/// - `Last, First` when a comma separates them (`Nguyen, Tyler`; `King, Jr., Martin Luther`);
/// - else the last word is the last name, with the particles before it (`Maria de la Cruz`,
///   `Vincent van Gogh`) and a suffix after it (`James Carter III`), and the words before are the
///   first name;
/// - a name of more than two words without a comma could be split elsewhere (`Mary Ann Smith`,
///   `José García López`), so it is read as the rule says with an `assumed-value` warning;
/// - one word has no last name, and a comma that leaves a side empty or three parts is refused.
struct FullName: Equatable {
    let first: String
    let last: String
    /// Why the split rests on an assumption, if it does.
    var warning: CellProblem?

    /// `--map 'TITLE=first_name+last_name'`: the two columns a whole name is split into.
    static let mapping = "first_name+last_name"

    /// Words that belong to the last name that follows them.
    private static let particles: Set<String> = [
        "al", "bin", "da", "das", "de", "del", "della", "der", "di", "do", "dos", "du", "el", "ibn", "la", "le",
        "los", "las", "st", "st.", "ten", "ter", "van", "von",
    ]
    /// Words that end a last name.
    private static let suffixes: Set<String> = ["jr", "jr.", "sr", "sr.", "ii", "iii", "iv"]

    /// Splits `text`, trimmed; an empty cell gives two empty names.
    static func split(_ text: String) throws(CellProblem) -> FullName {
        let name = CellNormalizer.trimmedNFC(text).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        if name.isEmpty { return FullName(first: "", last: "") }
        let parts = name.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        switch parts.count {
        case 1:
            return try words(name, whole: name)
        case 2 where isSuffix(parts[1]):
            return try words(parts[0] + " " + parts[1], whole: name)
        case 2 where !parts[0].isEmpty && !parts[1].isEmpty:
            return FullName(first: parts[1], last: parts[0])
        case 3 where isSuffix(parts[1]) && !parts[0].isEmpty && !parts[2].isEmpty:
            return FullName(first: parts[2], last: parts[0] + " " + parts[1])
        default:
            throw CellProblem(
                code: .typeError, message: "name \"\(name)\" does not say which words are the last name",
                hint: "write the last name, a comma, then the first name, e.g. Flores, Ana")
        }
    }

    private static func isSuffix(_ word: some StringProtocol) -> Bool { suffixes.contains(word.lowercased()) }

    /// The split of a name without a comma.
    private static func words(_ name: String, whole: String) throws(CellProblem) -> FullName {
        var words = name.split(separator: " ").map(String.init)
        var suffix: [String] = []
        if words.count > 2, let last = words.last, isSuffix(last) { suffix = [words.removeLast()] }
        guard words.count > 1 else {
            throw CellProblem(
                code: .missingValue, message: "name \"\(whole)\" has no last name",
                hint: "write the first and last name, e.g. Ana Flores")
        }
        var start = words.count - 1
        while start > 1, particles.contains(words[start - 1].lowercased()) { start -= 1 }
        let first = words[..<start].joined(separator: " ")
        var split = FullName(first: first, last: (words[start...] + suffix).joined(separator: " "))
        if start > 1 {
            split.warning = CellProblem(
                code: .assumedValue,
                message: "\"\(whole)\" is read as first name \"\(split.first)\" and last name \"\(split.last)\"",
                hint: "to say which words are the last name, write it first and a comma, "
                    + "e.g. \"\(split.last), \(split.first)\"")
        }
        return split
    }
}
