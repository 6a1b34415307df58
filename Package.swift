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
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.19"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/vapor/multipart-kit", from: "4.7.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
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
        .systemLibrary(name: "CLibXLSXWriter", path: "Sources/CLibXLSXWriter", pkgConfig: "xlsxwriter",
                       providers: [.apt(["libxlsxwriter-dev"])]),
        .systemLibrary(name: "CLibZ", path: "Sources/CLibZ", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CLibBSON", path: "Sources/CLibBSON", pkgConfig: "libbson-1.0",
                       providers: [.apt(["libbson-dev"])]),

        // Generic building blocks; none of them knows what a campus or a group is.
        .target(name: "FileOutput", dependencies: ["CLibCrypto"]),
        .target(name: "CSVStream", dependencies: ["CLibCSV", "FileOutput"]),
        .target(name: "CivilDays"),
        .target(name: "SpreadsheetReader", dependencies: ["CivilDays", "CLibZ", "CSVStream", "FileOutput", "ZIPFoundation"]),
        .target(name: "SpreadsheetWriter", dependencies: ["CLibXLSXWriter"]),
        .target(name: "Credentials"),
        .target(name: "PostgresClient", dependencies: ["CLibPQ", "Credentials"]),
        .target(name: "Mailer", dependencies: ["CLibCurl", "Credentials", "CivilDays"]),
        .target(name: "HTTPFetch", dependencies: ["CLibCurl", "Credentials", "FileOutput"]),
        .target(name: "ICalendar", dependencies: ["CivilDays"]),
        .target(name: "MessageTemplates", dependencies: [.product(name: "Mustache", package: "swift-mustache")]),
        .target(name: "BSONDocuments", dependencies: ["CLibBSON"]),

        // The domain: kinds, validation, import, export, notify, place.
        .target(name: "CruBatch", dependencies: ["CSVStream", "SpreadsheetReader", "SpreadsheetWriter", "FileOutput",
                                                     "PostgresClient", "Mailer", "HTTPFetch", "ICalendar", "MessageTemplates",
                                                     "BSONDocuments",
                                                     .product(name: "HummingbirdBcrypt", package: "hummingbird-auth")]),

        // The staff console: the domain's pages in a browser, signed in (`crubatch serve`).
        .target(name: "StaffConsole", dependencies: ["CruBatch", "PostgresClient",
                                                     .product(name: "Hummingbird", package: "hummingbird"),
                                                     .product(name: "NIOCore", package: "swift-nio"),
                                                     .product(name: "NIOPosix", package: "swift-nio"),
                                                     .product(name: "Logging", package: "swift-log"),
                                                     .product(name: "MultipartKit", package: "multipart-kit"),
                                                     .product(name: "HTTPTypes", package: "swift-http-types")]),

        // The thin command-line front end.
        .executableTarget(name: "crubatch", dependencies: [
            "CruBatch", "CSVStream", "FileOutput", "Mailer", "PostgresClient", "StaffConsole",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        // Helpers every test target shares: scratch folders, the test database, the mail sink.
        .target(name: "CruBatchTestSupport", dependencies: ["PostgresClient"], path: "Tests/CruBatchTestSupport"),

        .testTarget(name: "FileOutputTests", dependencies: ["FileOutput", "CruBatchTestSupport"]),
        // csv-spectrum/ is data the conformance test reads from beside its source, not a resource.
        .testTarget(name: "CSVStreamTests", dependencies: ["CSVStream", "CruBatchTestSupport"],
                    exclude: ["csv-spectrum"]),
        .testTarget(name: "SpreadsheetReaderTests", dependencies: ["SpreadsheetReader", "CSVStream", "CruBatchTestSupport"]),
        .testTarget(name: "SpreadsheetWriterTests", dependencies: ["SpreadsheetWriter", "CruBatchTestSupport"]),
        .testTarget(name: "PostgresClientTests",
                    dependencies: ["PostgresClient", "Credentials", "CruBatchTestSupport"]),
        .testTarget(name: "MailerTests", dependencies: ["Mailer", "CruBatchTestSupport"]),
        .testTarget(name: "HTTPFetchTests", dependencies: ["HTTPFetch", "CruBatchTestSupport"]),
        .testTarget(name: "ICalendarTests", dependencies: ["ICalendar", "CruBatchTestSupport"]),
        .testTarget(name: "MessageTemplatesTests", dependencies: ["MessageTemplates", "CruBatchTestSupport"]),
        .testTarget(name: "BSONDocumentsTests", dependencies: ["BSONDocuments", "CruBatchTestSupport"]),
        .testTarget(name: "CruBatchTests", dependencies: ["CruBatch", "crubatch", "CruBatchTestSupport", "SpreadsheetReader"]),
    ],
    swiftLanguageModes: [.v6]
)
