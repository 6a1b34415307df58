/// Finds the row a reference cell means when it holds a code or a name: a campus, a ministry, a group.
/// `import` resolves names with it in its database checks and `place` reads answers with it, so both
/// accept the same words.
///
/// Tried in order; the first rule that matches anything decides, and it must match exactly one row:
/// 1. the code, ignoring case (`CRU-CalPoly`);
/// 2. the name or the code ignoring case, spaces and punctuation (`cru calpoly`, `CRU CAL POLY`);
/// 3. words that begin the name: every word of the cell, in order, is a word of the name, the start
///    of one (at least 3 letters: `Poly` for `Polytechnic`), or the initials of several consecutive
///    ones (`SLO` for `San Luis Obispo`); the first word must match the name's first word
///    (`Cal Poly SLO` is Cal Poly San Luis Obispo, `Cru` is any "Cru ..." ministry);
/// 4. the same, anywhere in the name (`Hancock` is Allan Hancock College).
///
/// Several rows matched by the deciding rule are narrowed to the row's scope when it has one (a
/// student's ministries to the student's campus); if that does not leave one, the cell is ambiguous
/// and the candidates are listed. Text that matches nothing gets a "did you mean" among the codes
/// and names that exist.
struct NameMatcher {
    /// A row that can be referred to.
    struct Candidate: Sendable, Equatable {
        let code: String
        let name: String
        /// What narrows an ambiguous match (the ministry's campus code), if anything.
        var scope: String?

        /// `Cru Cal Poly (cru-calpoly)`, for lists of candidates.
        var label: String { "\(name) (\(code))" }
    }

    /// What a cell refers to.
    enum Match: Equatable {
        case found(Candidate)
        case ambiguous([Candidate])
        case none
    }

    /// A class, so that trying the rules on every entry retains one reference, not each of its strings.
    private final class Entry: Sendable {
        let candidate: Candidate
        let key: String
        let codeKey: String
        let words: [String]

        init(candidate: Candidate, key: String, codeKey: String, words: [String]) {
            self.candidate = candidate
            self.key = key
            self.codeKey = codeKey
            self.words = words
        }
    }

    /// A word of a cell and its length in letters, counted once for every candidate it is tried on.
    private struct CellWord {
        let text: String
        let letters: Int
    }

    private let entries: [Entry]
    /// By letter, in the order of `entries`: those whose name's first word begins with it, and those
    /// with any word that does. A word of a cell matches a word of a name (whole, as its start, or as
    /// initials of a run of words) only when both begin with the same letter, so rules 3 and 4 only
    /// try these.
    private let byFirstWordInitial: [Character: [Entry]]
    private let byAnyWordInitial: [Character: [Entry]]
    /// In the order of `entries`: by code (rule 1), and by the key of the name or of the code
    /// (rule 2), so that a cell holding a code, the usual case, is found without trying every entry.
    private let byCode: [String: [Entry]]
    private let byKey: [String: [Entry]]

    init(_ candidates: [Candidate]) {
        entries = candidates.map { candidate in
            let words = NameWords.words(of: candidate.name)
            return Entry(candidate: candidate, key: words.joined(), codeKey: Vocabulary.key(candidate.code), words: words)
        }
        var byFirstWordInitial: [Character: [Entry]] = [:], byAnyWordInitial: [Character: [Entry]] = [:]
        var byCode: [String: [Entry]] = [:], byKey: [String: [Entry]] = [:]
        for entry in entries {
            byCode[entry.candidate.code, default: []].append(entry)
            byKey[entry.key, default: []].append(entry)
            if entry.codeKey != entry.key { byKey[entry.codeKey, default: []].append(entry) }
            if let initial = entry.words.first?.first { byFirstWordInitial[initial, default: []].append(entry) }
            for initial in Set(entry.words.compactMap(\.first)) { byAnyWordInitial[initial, default: []].append(entry) }
        }
        self.byFirstWordInitial = byFirstWordInitial
        self.byAnyWordInitial = byAnyWordInitial
        self.byCode = byCode
        self.byKey = byKey
    }

    func match(_ text: String, scope: String? = nil) -> Match {
        let lower = text.lowercased()
        let words = NameWords.words(of: text)
        guard !words.isEmpty else { return .none }
        let key = words.joined()
        let cell = words.map { CellWord(text: $0, letters: $0.count) }
        let initial = words[0].first!
        let rules: [(tried: [Entry], matches: (Entry) -> Bool)] = [
            (byCode[lower] ?? [], { _ in true }),
            (byKey[key] ?? [], { _ in true }),
            (byFirstWordInitial[initial] ?? [], { Self.wordsMatch(cell[...], $0.words[...], anchored: true) }),
            (byAnyWordInitial[initial] ?? [], { Self.wordsMatch(cell[...], $0.words[...], anchored: false) }),
        ]
        for rule in rules {
            let matched = rule.tried.filter(rule.matches).map(\.candidate)
            if matched.count == 1 { return .found(matched[0]) }
            guard matched.count > 1 else { continue }
            let inScope = scope.map { scope in matched.filter { $0.scope == scope } } ?? []
            if inScope.count == 1 { return .found(inScope[0]) }
            return .ambiguous(inScope.count > 1 ? inScope : matched)
        }
        return .none
    }

    /// The closest code or name to a cell that matched nothing, if it is close enough to be a typo.
    func suggestion(for text: String) -> String? {
        Suggestion.closest(to: text, among: entries.map(\.candidate.code) + entries.map(\.candidate.name))
    }

    /// Whether every word of `cell` matches, in order, a word (or a run of words, by their initials)
    /// of `name`; `anchored` makes the first word match the name's first word.
    /// Slices all the way down: it runs for every candidate of every cell, so it copies nothing.
    private static func wordsMatch(_ cell: ArraySlice<CellWord>, _ name: ArraySlice<String>, anchored: Bool) -> Bool {
        guard let first = cell.first else { return true }
        let rest = cell.dropFirst()
        let starts = anchored ? name.indices.prefix(1) : name.indices[...]
        let word = first.text, letters = first.letters
        for start in starts {
            if name[start] == word || (letters >= 3 && name[start].hasPrefix(word)),
               wordsMatch(rest, name[(start + 1)...], anchored: false) {
                return true
            }
            if letters >= 2, start + letters <= name.endIndex,
               zip(word, name[start..<(start + letters)]).allSatisfy({ $0 == $1.first }),
               wordsMatch(rest, name[(start + letters)...], anchored: false) {
                return true
            }
        }
        return false
    }
}
