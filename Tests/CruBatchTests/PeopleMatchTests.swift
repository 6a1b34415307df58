import CruBatchTestSupport
import Foundation
import Testing

/// A pair `people duplicates --format json` lists.
struct ListedPair {
    let emails: Set<String>
    let score: Int
    let reasons: String
    let blocks: [String]

    /// The pairs of a `--format json` output.
    static func all(inJSON text: String) throws -> [ListedPair] {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let pairs = try #require(document["pairs"] as? [[String: Any]])
        return try pairs.map { pair in
            let keep = try #require((pair["keep"] as? [String: Any])?["email"] as? String)
            let drop = try #require((pair["drop"] as? [String: Any])?["email"] as? String)
            return ListedPair(emails: [keep.lowercased(), drop.lowercased()], score: try #require(pair["score"] as? Int),
                              reasons: try #require(pair["reasons"] as? String), blocks: try #require(pair["blocks"] as? [String]))
        }
    }
}

/// The pairs of emails a labelled file lists (its first two columns), each as a set of two.
func labelledPairs(_ path: String) throws -> Set<Set<String>> {
    Set(try String(contentsOfFile: path, encoding: .utf8).split(whereSeparator: \.isNewline).dropFirst().map { line in
        let cells = line.split(separator: ",").map { $0.lowercased() }
        return [cells[0], cells[1]]
    })
}

/// `crubatch people duplicates` on the two labelled sets: fixtures/people-duplicates (80 true pairs
/// among 2,000 students, written next to the old rules) and fixtures/people-labelled (150 true pairs
/// of thirteen kinds and 150 look-alikes among 3,000, written apart from any matcher). Each set is
/// loaded, every pair that shares a key is listed (`--min-score 0`), and the default score is judged
/// against the set's truth.
@Suite("people matching on the labelled sets")
struct PeopleMatchLabelledTests {
    @Test("fixtures/people-labelled is what its gen.py writes: deterministic")
    func labelledFixtureIsGenerated() throws {
        let folder = try ScratchDirectory().folder("generated")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", TestEnvironment.fixture("people-labelled/gen.py"), folder]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
        for file in ["students.csv", "truth.csv", "lookalikes.csv"] {
            #expect(try sha256sum(folder + "/" + file) == sha256sum(TestEnvironment.fixture("people-labelled/" + file)),
                    "fixtures/people-labelled/\(file) is not what gen.py writes: run it again")
        }
    }

    @Test("at the default score, recall >= 0.95 and precision >= 0.97 on both sets; what each block finds",
          arguments: [("people-duplicates", false), ("people-labelled", true)])
    func recallAndPrecision(set: String, campuses: Bool) throws {
        let database = try TestDatabase()
        if campuses {
            #expect(try database.run(["import", "campuses", TestEnvironment.fixture("central-coast/campuses.csv")]).status == 0)
        }
        let load = try database.run(["import", "students", TestEnvironment.fixture("\(set)/students.csv")])
        #expect(load.status == 0, "\(load.stderr)")
        let result = try database.run(["people", "duplicates", "--format", "json", "--min-score", "0"])
        #expect(result.status == 0, "\(result.stderr)")
        let listed = try ListedPair.all(inJSON: result.stdout)
        let truth = try labelledPairs(TestEnvironment.fixture("\(set)/truth.csv"))
        let lookalikes = campuses ? try labelledPairs(TestEnvironment.fixture("\(set)/lookalikes.csv")) : []

        let found = Set(listed.filter { $0.score >= 70 }.map(\.emails))
        let right = found.intersection(truth).count
        let recall = Double(right) / Double(truth.count), precision = Double(right) / Double(max(1, found.count))
        print("people duplicates on fixtures/\(set): \(truth.count) true pairs, \(found.count) listed at 70, \(right) right: "
            + "recall \(String(format: "%.3f", recall)), precision \(String(format: "%.3f", precision)), "
            + "\(found.intersection(lookalikes).count) of \(lookalikes.count) look-alikes listed")
        for block in Set(listed.flatMap(\.blocks)).sorted() {
            let pairs = listed.filter { $0.blocks.contains(block) }
            let finds = Set(pairs.map(\.emails)).intersection(truth).count
            let alone = Set(pairs.filter { $0.blocks == [block] }.map(\.emails)).intersection(truth).count
            print("  block \(block): \(pairs.count) pairs compared, \(finds) true pairs among them (\(alone) found by it alone)")
        }
        #expect(truth.count >= 80)
        #expect(recall >= 0.95)
        #expect(precision >= 0.97)
        // Every true pair is compared at all, and the pairs come strongest first.
        #expect(truth.isSubset(of: Set(listed.map(\.emails))))
        #expect(listed.map(\.score) == listed.map(\.score).sorted(by: >))
    }
}

/// Each comparison, level by level: two pairs in one list that differ in that comparison alone, the
/// stronger level scoring higher, and the reasons naming each. The list around them is 400 people of
/// common names (Maria Garcia 26 times) on three campuses, every phone their own, their addresses
/// made of their names as most are (so namesakes share the letters of some), or of their own.
@Suite("people matching: each comparison's levels")
struct PeopleMatchLevelTests {
    private let scratch = ScratchDirectory()

    /// 400 people whose names come from short lists (so they repeat), each with a phone of their own
    /// and an address made of their name (`maria.garcia7`, `mgarcia12`, ...) or of their own.
    private static let background: String = {
        let given = ["Maria", "Jose", "Michael", "Emily", "Daniel", "Sarah", "David", "Ashley", "Juan", "Jessica",
                     "Kevin", "Grace", "Luis", "Hannah", "Ryan", "Sophia", "Anthony", "Olivia", "Jacob", "Chloe"]
        let surnames = ["Garcia", "Nguyen", "Smith", "Johnson", "Lopez", "Kim", "Martinez", "Brown", "Lee", "Davis",
                        "Hernandez", "Chen", "Wilson", "Patel", "Rodriguez", "Miller", "Tran", "Clark", "Lewis", "Young"]
        return (0..<400).map { index in
            let name = index < 6 ? ("Maria", "Garcia") : (given[(index * 7) % given.count], surnames[(index * 13) % surnames.count])
            let (first, last) = (name.0.lowercased(), name.1.lowercased())
            let address = [first + "." + last + "\(index)@gmail.com", first.prefix(1) + last + "\(index)@calpoly.edu",
                           first + last + "\(index)@yahoo.com", first + "_" + last + "\(index)@outlook.com",
                           handle(index) + "@example.org"][index % 5]
            let campus = ["calpoly", "cuesta", "hancock"][index % 3]
            return "\(address),\(name.0),\(name.1),805-555-\(String(format: "%04d", 1000 + index)),,\(campus)\n"
        }.joined()
    }()

    /// A handle of letters only that no other number gives (`p` and its digits as letters: 12 is `pbc`),
    /// so no two people share one, nor its letters.
    private static func handle(_ number: Int) -> String {
        "p" + String(number).map { String(UnicodeScalar(UInt8(ascii: "a") + UInt8(String($0))!)) }.joined()
    }

    /// The score and reasons of each listed pair, by its two emails, once the background and `probes`
    /// (rows `email,first_name,last_name,phone,sex,campus`) are loaded.
    private func scores(_ probes: String) throws -> [Set<String>: ListedPair] {
        let database = try TestDatabase()
        #expect(try database.run(["import", "campuses", TestEnvironment.fixture("central-coast/campuses.csv")]).status == 0)
        let file = try scratch.writeFile("people.csv", "email,first_name,last_name,phone,sex,campus\n" + Self.background + probes)
        let load = try database.run(["import", "students", file])
        #expect(load.status == 0, "\(load.stderr)")
        let result = try database.run(["people", "duplicates", "--format", "json", "--min-score", "0"])
        #expect(result.status == 0, "\(result.stderr)")
        return Dictionary(try ListedPair.all(inJSON: result.stdout).map { ($0.emails, $0) }, uniquingKeysWith: { a, _ in a })
    }

    private func pair(_ listed: [Set<String>: ListedPair], _ a: String, _ b: String) throws -> ListedPair {
        try #require(listed[[a, b]], "\(a) / \(b) not listed")
    }

    @Test("the full name: a rare one weighs more than a common one (Maria Garcia, 26 of them); a name alone is never enough")
    func fullNameFrequency() throws {
        let listed = try scores("""
            ocelot.zq5@gmail.com,Zebulon,Quarrington,,male,calpoly
            ocelot.zq5@yahoo.com,Zebulon,Quarrington,,male,calpoly
            ocelot.mg5@gmail.com,Maria,Garcia,,female,calpoly
            ocelot.mg5@yahoo.com,Maria,Garcia,,female,calpoly
            northzr@example.net,Zephyrine,Quillfeather,,female,calpoly
            southzr@example.com,Zephyrine,Quillfeather,,female,calpoly

            """)
        let rare = try pair(listed, "ocelot.zq5@gmail.com", "ocelot.zq5@yahoo.com")
        let common = try pair(listed, "ocelot.mg5@gmail.com", "ocelot.mg5@yahoo.com")
        #expect(rare.score > common.score, "\(rare) \(common)")
        #expect(rare.reasons.hasPrefix("same name +") && common.reasons.hasPrefix("same name +"))
        // A name alone, however rare, is one piece of evidence: a pair sharing nothing else stays below 70.
        let alone = try pair(listed, "northzr@example.net", "southzr@example.com")
        #expect(alone.reasons.hasPrefix("same name +") && alone.score < 70, "\(alone)")
    }

    @Test("the given name: the same, a nickname, a typo in a short name, a middle name, a short form, and two different names on one phone")
    func givenNameLevels() throws {
        let listed = try scores("""
            northq@example.net,Elizabeth,Quist,805-555-2001,female,calpoly
            southq@example.com,Liz,Quist,805-555-2001,female,calpoly
            northf@example.net,Jon,Farrow,805-555-2002,male,calpoly
            southf@example.com,Jonh,Farrow,805-555-2002,male,calpoly
            northw@example.net,Mary Ann,Wexley,805-555-2003,female,calpoly
            southw@example.com,Mary,Wexley,805-555-2003,female,calpoly
            northh@example.net,Gwendolyn,Ostrow,805-555-2004,female,calpoly
            southh@example.com,Gwen,Ostrow,805-555-2004,female,calpoly
            norths@example.net,Margaret,Quayle,805-555-2005,female,calpoly
            souths@example.com,Rebecca,Quayle,805-555-2005,female,calpoly

            """)
        let nickname = try pair(listed, "northq@example.net", "southq@example.com")
        let typo = try pair(listed, "northf@example.net", "southf@example.com")
        let middle = try pair(listed, "northw@example.net", "southw@example.com")
        let short = try pair(listed, "northh@example.net", "southh@example.com")
        let siblings = try pair(listed, "norths@example.net", "souths@example.com")
        #expect(nickname.reasons.hasPrefix("nickname: Elizabeth / Liz +"), "\(nickname.reasons)")
        #expect(typo.reasons.hasPrefix("one letter apart: Jon / Jonh +"), "\(typo.reasons)")
        #expect(middle.reasons.hasPrefix("given names: Mary Ann / Mary +"), "\(middle.reasons)")
        #expect(short.reasons.hasPrefix("short form: Gwendolyn / Gwen +"), "\(short.reasons)")
        #expect(siblings.reasons.hasPrefix("different given names -"), "\(siblings.reasons)")
        for alike in [nickname, typo, middle, short] {
            #expect(alike.score >= 70 && alike.score > siblings.score, "\(alike) against \(siblings)")
        }
        #expect(siblings.score < 70)
    }

    @Test("the surname: the same, one part of a compound, a typo, the same sound, a new one (same given name and phone), and both names different")
    func surnameLevels() throws {
        let listed = try scores("""
            northk@example.net,Odalys,Kaufman,805-555-3005,female,calpoly
            southk@example.com,Odalys,Coffman,805-555-3005,female,calpoly
            ocelot.rk7@gmail.com,Rosalind,Kaufman,,female,calpoly
            ocelot.rk7@yahoo.com,Rosalind,Coffman,,female,calpoly
            northg@example.net,Ximena,Garcia,805-555-3001,female,calpoly
            southg@example.com,Ximena,Garcia-Lopez,805-555-3001,female,calpoly
            northn@example.net,Bao,Nguyen,805-555-3002,male,calpoly
            southn@example.com,Bao,Nguyne,805-555-3002,male,calpoly
            northm@example.net,Juniper,Capelli,805-555-3003,female,calpoly
            southm@example.com,Juniper,Sotomayor,805-555-3003,female,calpoly
            northr@example.net,Thaddeus,Ravenscroft,805-555-3004,male,calpoly
            southr@example.com,Percival,Ashworth,805-555-3004,male,calpoly

            """)
        let part = try pair(listed, "northg@example.net", "southg@example.com")
        let typo = try pair(listed, "northn@example.net", "southn@example.com")
        let married = try pair(listed, "northm@example.net", "southm@example.com")
        let strangers = try pair(listed, "northr@example.net", "southr@example.com")
        #expect(part.reasons.contains("last names: Garcia / Garcia-Lopez"), "\(part.reasons)")
        #expect(typo.reasons.contains("one letter apart: Nguyen / Nguyne"), "\(typo.reasons)")
        #expect(married.reasons.contains("different last names -"), "\(married.reasons)")
        // Kaufman and Coffman are three letters apart and one sound (KFMN): on one phone as in a family,
        // and elsewhere as two records' surnames, for which the same sound is evidence
        let family = try pair(listed, "northk@example.net", "southk@example.com")
        let sound = try pair(listed, "ocelot.rk7@gmail.com", "ocelot.rk7@yahoo.com")
        #expect(family.reasons.contains("sound alike: Kaufman / Coffman"), "\(family.reasons)")
        #expect(sound.reasons.contains("sound alike: Kaufman / Coffman +"), "\(sound.reasons)")
        for alike in [part, typo, married, family] {
            #expect(alike.score >= 70 && alike.score > strangers.score, "\(alike) against \(strangers)")
        }
        #expect(strangers.score < 70)
    }

    @Test("the phone: the same, missing on one side, different")
    func phoneLevels() throws {
        let listed = try scores("""
            northa@example.net,Octavia,Brennaman,805-555-4001,female,calpoly
            southa@example.com,Octavia,Brennaman,805-555-4001,female,calpoly
            northb@example.net,Philippa,Castellane,805-555-4002,female,calpoly
            southb@example.com,Philippa,Castellane,,female,calpoly
            northc@example.net,Rosalind,Devereaux,805-555-4003,female,calpoly
            southc@example.com,Rosalind,Devereaux,805-555-4004,female,calpoly

            """)
        let same = try pair(listed, "northa@example.net", "southa@example.com")
        let missing = try pair(listed, "northb@example.net", "southb@example.com")
        let different = try pair(listed, "northc@example.net", "southc@example.com")
        #expect(same.reasons.contains("same phone +") && different.reasons.contains("different phones -"))
        #expect(!missing.reasons.contains("phone"))
        #expect(same.score > missing.score && missing.score > different.score, "\(same) \(missing) \(different)")
    }

    @Test("the email: the same mailbox, a handle of its own shared elsewhere, a handle that is only the name, nothing")
    func emailLevels() throws {
        let listed = try scores("""
            k.ambrose@gmail.com,Kestrel,Ambrose,,male,calpoly
            kambrose+cru@googlemail.com,Kestrel,Ambrose,,male,calpoly
            surfer.lazlo42@gmail.com,Lazlo,Brightwater,,male,calpoly
            surfer.lazlo42@yahoo.com,Lazlo,Brightwater,,male,calpoly
            corvin.ambler@gmail.com,Corvin,Ambler,,male,calpoly
            corvin_ambler@yahoo.com,Corvin,Ambler,,male,calpoly
            northdax@example.net,Dashiell,Crowder,,male,calpoly
            southdax@example.com,Dashiell,Crowder,,male,calpoly

            """)
        let mailbox = try pair(listed, "k.ambrose@gmail.com", "kambrose+cru@googlemail.com")
        let handle = try pair(listed, "surfer.lazlo42@gmail.com", "surfer.lazlo42@yahoo.com")
        let name = try pair(listed, "corvin.ambler@gmail.com", "corvin_ambler@yahoo.com")
        let nothing = try pair(listed, "northdax@example.net", "southdax@example.com")
        #expect(mailbox.reasons.contains("email variant +"), "\(mailbox.reasons)")
        #expect(handle.reasons.contains("same email handle +"), "\(handle.reasons)")
        #expect(name.reasons.contains("same email handle made of the name +"), "\(name.reasons)")
        #expect(nothing.reasons.contains("no email in common -"), "\(nothing.reasons)")
        // A handle that is only the name adds less than a handle of the person's own.
        #expect(mailbox.score >= 70 && handle.score >= 70)
        #expect(handle.score > name.score && name.score >= nothing.score, "\(handle) \(name) \(nothing)")
        #expect(name.score < 70)
    }

    @Test("handles made of the name as people type them into a form: capitals, accents, curly apostrophes, compound surnames")
    func handlesAsTyped() throws {
        let listed = try scores("""
            Maria.DeLaCruz@Gmail.com,MARÍA,De la Cruz,,female,calpoly
            maria_delacruz@yahoo.com,María,de la Cruz,,female,calpoly
            obrien.siobhan@gmail.com,Siobhán,O'Brien,,female,calpoly
            OBrien.Siobhan@outlook.com,Siobhan,O’Brien,,female,calpoly
            jgarcialopez@gmail.com,José,García-López,,male,calpoly
            j.garcia-lopez@yahoo.com,Jose,Garcia Lopez,,male,calpoly
            quintana.t@gmail.com,Thelonius,Quintana,,male,calpoly
            quintana.t@yahoo.com,Thelonius,Quintana,,male,calpoly
            mj.okafor@gmail.com,Marisol,Okafor,,female,calpoly
            mj.okafor@yahoo.com,Marisol,Okafor,,female,calpoly

            """)
        // The name run together either way, the initial and a compound surname, the surname and an
        // initial: each is made of the name, whatever the case, accents and punctuation typed.
        for (a, b) in [("maria.delacruz@gmail.com", "maria_delacruz@yahoo.com"),
                       ("obrien.siobhan@gmail.com", "obrien.siobhan@outlook.com"),
                       ("jgarcialopez@gmail.com", "j.garcia-lopez@yahoo.com"), ("quintana.t@gmail.com", "quintana.t@yahoo.com")] {
            let named = try pair(listed, a, b)
            #expect(named.reasons.contains("same email handle made of the name +"), "\(a) / \(b): \(named.reasons)")
        }
        // Two letters that are not the start of the given name are a handle of the person's own.
        let own = try pair(listed, "mj.okafor@gmail.com", "mj.okafor@yahoo.com")
        #expect(own.reasons.contains("same email handle +") && !own.reasons.contains("made of the name"), "\(own.reasons)")
    }

    @Test("sex, campus and a Jr.: two names alike on one phone, the same sex and campus, or not; a father and a son")
    func contradictions() throws {
        let listed = try scores("""
            northt@example.net,Taylor,Pennington,805-555-5001,female,calpoly
            southt@example.com,Tylor,Pennington,805-555-5001,female,calpoly
            northu@example.net,Taylor,Whitcombe,805-555-5002,female,calpoly
            southu@example.com,Tylor,Whitcombe,805-555-5002,male,calpoly
            northv@example.net,Taylor,Aldridge,805-555-5003,female,calpoly
            southv@example.com,Tylor,Aldridge,805-555-5003,female,cuesta
            northj@example.net,Ignatius,Fairweather,,male,calpoly
            southj@example.com,Ignatius,Fairweather Jr.,,male,calpoly
            northk@example.net,Leopold,Hawthorne,,male,calpoly
            southk@example.com,Leopold,Hawthorne,,male,calpoly

            """)
        let alike = try pair(listed, "northt@example.net", "southt@example.com")
        let otherSex = try pair(listed, "northu@example.net", "southu@example.com")
        let otherCampus = try pair(listed, "northv@example.net", "southv@example.com")
        let junior = try pair(listed, "northj@example.net", "southj@example.com")
        let plain = try pair(listed, "northk@example.net", "southk@example.com")
        #expect(otherSex.reasons.contains("different sex -") && otherCampus.reasons.contains("different campuses -"))
        #expect(junior.reasons.contains("Jr. on one only -"), "\(junior.reasons)")
        #expect(alike.score > otherSex.score && alike.score > otherCampus.score, "\(alike) \(otherSex) \(otherCampus)")
        #expect(otherSex.score < 70)
        #expect(plain.score > junior.score, "\(plain) \(junior)")
    }

    @Test("names swapped weigh as the same name; a family on one phone shares a surname, which then adds almost nothing")
    func swappedAndFamilies() throws {
        let listed = try scores("""
            northx@example.net,Thanh,Vuong,805-555-6001,male,calpoly
            southx@example.com,Vuong,Thanh,805-555-6001,male,calpoly
            northy@example.net,Ophelia,Marchetti,805-555-6002,female,calpoly
            southy@example.com,Ophelia,Marchetti,805-555-6002,female,calpoly
            westy@example.org,Benedict,Marchetti,805-555-6002,male,calpoly

            """)
        let swapped = try pair(listed, "northx@example.net", "southx@example.com")
        let twice = try pair(listed, "northy@example.net", "southy@example.com")
        let family = try pair(listed, "northy@example.net", "westy@example.org")
        #expect(swapped.reasons.hasPrefix("first and last name swapped +") && swapped.score >= 70, "\(swapped)")
        #expect(twice.score >= 70 && family.score < 70, "\(twice) \(family)")
        #expect(family.reasons.contains("different given names -"), "\(family.reasons)")
    }
}
