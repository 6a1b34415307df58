@testable import CruBatch
import CruBatchTestSupport
import Foundation
import Testing

/// Migrations are history: the text of each applied one is pinned here by its SHA-256, so an edit to
/// one (its whitespace too) fails the tests, not a production `migrate`, which refuses a migration
/// whose text changed after it was applied. A new migration adds its line; no line ever changes.
@Suite("migrations are frozen")
struct FrozenMigrationTests {
    static let pinned: [Int: String] = [
        1: "be193599f3030f10b6149ad3757d68fa87816b262a338249d48a92813edcbadc",
        2: "0498388161cbb0bd4452dbcd289ab04913520f81eaae12da877779ad9b857f32",
        3: "529ff204fb1df31af27d8e87802c6a55d8bf1077cdb9013ecdc5ce57e0095348",
        4: "22ee43d233efe997471c8cd6a14e88af6c2b1a69fa25715be1ed4df3b6029e10",
        5: "7b9b274b8d5303b81f7881f4a6ef333b05b6cb5fb6ade590fbd460219f42fe9f",
        6: "e13cfbc412150de4983a83ca2ef82226c697bcfcd43cf2f0c1636ee2aa450570",
        7: "7a16d67486459da9b60dd9399bc6bd469bca0b9b17d0b5a4f5ed4457eb91228c",
        8: "4df4ef22d015c6440d91c442eeed1f476c5a27d861334932824588ba27ff4c76",
        9: "a5174c1cbb13ff134e16493b12d097bf3ec700d4143c0c6721e73e281f3758b9",
        10: "8caba751f8c0c479d506f64ab1d80a6b96351297e28e3044593165fd091a2cd6",
        11: "4dfdc05dafe9d411a9207fc21a2eb82faea5f47a704375a7c44193b761dd07d6",
        12: "e6f08125ca6c612cb080344c9cd69e5f21e67680cb3fee0fff4b7f105fc1a6cf",
        13: "0f292703e013ad3af907a583159f8a3aa56f24f1017e44454894fc9edd59441e",
        14: "56221660c0a78e7e4c6824b7147329fe94258351ef9c95658f609793be2401b2",
        15: "e141a46b93069474e61c17a1ef370dc027ace9de46f1a3188359f546fd0300fe",
        17: "651ab40eb6e06f935b0cbb8500aa02c4440d1d4e2a5f30808fa4bd5929b7d5c0",
        19: "42edd77b8e6d4b37d9762f1c31f5f884a308158768724c79bcc815db7651d887",
        20: "98361c424aabd01ed9089d4e7687d22042c30a7e9996b7ecbf2c1104164da94c",
        21: "9eb6db054ec180fe7af93dcad17f11d419f76b89e00dd2d2f22e633d05a32924",
        22: "f96db18847aee8a7fbbcf1f0b6974681aa8892c02f35ec22677238d09afe2301",
        23: "b238924ffce0654a46a165916ffa646ecdc72f584cb5b223664df6e99d896fac",
        24: "1714017fcd5634e457650a652417615f1170f89c4d610ddc4b86eea8779e383b",
        25: "b539deed74ae7cd6e1a6a0a55087a49a08669e954df131cec155e2d628a58576",
        26: "d4f583fd03262ee3ddda57e533349c56cc5be77d94b7242b7e127ef6a09260f1",
        27: "3809be64d3008368d313ab0f1ffcf9e97b829e6eb3de9a45d00687a6b318d6e9",
        28: "0ed0a53f0147c1842d63e6035bd2d06c10c476bab89bef17175ccfe06f3985b0",
        29: "951f4d191fd25c927c32514f2ef3566ebd4adf83ae1851038a7ae444ace5ae2e",
        30: "0a24997f02e889e6df6e0d77b2e076aa72e6e1d0cb868ae37db02867ed386f57",
        31: "699260a08a958bdb335cce4a69063b113c2d27a41617bfcdc8f7678d72fe12d3",
        32: "8f8d576d6394535df37a11b68dbe8cce282836121964f6f66b54ba29d7346ec8",
        33: "e659edc0db841d2ade1617e67149d99e807ae09bfb3513f3255285bdb4ee2822",
        34: "a7883c2007118159e6dd3320346c4e6ef9146894e8b93f24a52b64f9984f9d00",
        35: "05a186d3b53f327bd2ff9a3cecf8fff2c5ae66c1ee41f43ed5f4a9bb62c7d5c4",
        36: "e1bd4ba23caf5432d3f10a43fbdb9569f06fe007f2bc2b240ef59757b068afd6",
        37: "3cd70dff9ecdf7775783dde51da920460402fff4a127267df5e01b3a4773e9e7",
    ]

    @Test("every migration's text is the one pinned for its version, and every version is pinned")
    func textsArePinned() {
        #expect(Set(Migration.all.map(\.version)) == Set(Self.pinned.keys), "a migration was added or removed: pin its checksum")
        for migration in Migration.all {
            #expect(migration.checksum == Self.pinned[migration.version],
                    "migration \(migration.version) (\(migration.name)) changed after it was written: add a new migration instead")
        }
    }
}
