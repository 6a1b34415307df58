// swift-tools-version: 6.0
// crubatch: the admin and batch toolkit behind Cru's campus-ministry app.
import PackageDescription

let package = Package(
    name: "crubatch",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "crubatch", targets: ["crubatch"]),
        .library(name: "CruBatch", targets: ["CruBatch"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // C libraries, wrapped so Swift can call them; they know nothing of Cru.
        .systemLibrary(name: "CLibPQ", path: "Sources/CLibPQ", pkgConfig: "libpq",
                       providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CLibCSV", path: "Sources/CLibCSV", providers: [.apt(["libcsv-dev"])]),
        .systemLibrary(name: "CLibCurl", path: "Sources/CLibCurl", pkgConfig: "libcurl",
                       providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CLibCrypto", path: "Sources/CLibCrypto", pkgConfig: "libcrypto",
                       providers: [.apt(["libssl-dev"])]),

        // Generic building blocks.
        .target(name: "CSVStream", dependencies: ["CLibCSV", "CLibCrypto"]),
        .target(name: "PostgresClient", dependencies: ["CLibPQ"]),
        .target(name: "Mailer", dependencies: ["CLibCurl"]),

        // The domain: kinds, validation, import, export, notify, place.
        .target(name: "CruBatch", dependencies: ["CSVStream", "PostgresClient", "Mailer"]),

        // The thin command-line front end.
        .executableTarget(name: "crubatch", dependencies: [
            "CruBatch",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        .testTarget(name: "CSVStreamTests", dependencies: ["CSVStream"]),
        .testTarget(name: "PostgresClientTests", dependencies: ["PostgresClient"]),
        .testTarget(name: "MailerTests", dependencies: ["Mailer"]),
        .testTarget(name: "CruBatchTests", dependencies: ["CruBatch", "crubatch"]),
    ],
    swiftLanguageModes: [.v6]
)
