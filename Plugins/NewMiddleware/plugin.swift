// `swift package new-middleware <Name>`: writes the skeleton of an in-house middleware module:
//
//   Sources/Sluice<Name>/<Name>Middleware.swift          the middleware, documented, with a Configuration
//   Sources/Sluice<Name>/Sluice<Name>.docc/Sluice<Name>.md   its DocC article
//   Tests/Sluice<Name>Tests/<Name>MiddlewareTests.swift   a test over MockTransport
//
// and prints the lines to add to Package.swift. Options: `--module NAME` (default Sluice<Name>),
// `--force` to overwrite existing files.
import Foundation
import PackagePlugin

@main
struct NewMiddleware: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        let module = extractor.extractOption(named: "module").last
        let force = extractor.extractFlag(named: "force") > 0
        guard let rawName = extractor.remainingArguments.first else {
            throw PluginError("usage: swift package new-middleware <Name> [--module NAME] [--force]")
        }
        let name = rawName.hasSuffix("Middleware") ? String(rawName.dropLast("Middleware".count)) : rawName
        guard let first = name.unicodeScalars.first, CharacterSet.uppercaseLetters.contains(first),
            name.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) && $0.isASCII })
        else {
            throw PluginError("\(String(reflecting: rawName)) is not a type name: use UpperCamelCase ASCII letters and digits, e.g. Tenant")
        }
        let moduleName = module ?? "Sluice\(name)"
        let root = context.package.directoryURL
        let files = [
            (root.appending(path: "Sources/\(moduleName)/\(name)Middleware.swift"), Templates.source(name, moduleName)),
            (root.appending(path: "Sources/\(moduleName)/\(moduleName).docc/\(moduleName).md"), Templates.article(name, moduleName)),
            (root.appending(path: "Tests/\(moduleName)Tests/\(name)MiddlewareTests.swift"), Templates.test(name, moduleName)),
        ]
        for (url, _) in files where FileManager.default.fileExists(atPath: url.path) && !force {
            throw PluginError("\(url.path) exists already; pass --force to overwrite it")
        }
        for (url, text) in files {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
            print("wrote \(url.path)")
        }
        print(Templates.manifest(moduleName))
    }
}

struct PluginError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

enum Templates {
    static func source(_ name: String, _ module: String) -> String {
        """
        import Sluice

        /// <#What \(name)Middleware does, in one sentence.#>
        ///
        /// ```swift
        /// import Sluice
        /// import SluiceCurl
        /// import \(module)
        ///
        /// var builder = Client.Builder(transport: CurlTransport())
        /// builder.add(\(name)Middleware())
        /// let client = builder.build()
        /// ```
        public struct \(name)Middleware: Middleware {
            /// How \(name)Middleware behaves. Immutable; start from ``default``.
            public struct Configuration: Sendable {
                /// The header this middleware sets.
                public var headerName: String
                /// Its value.
                public var headerValue: String

                /// A configuration that sets `headerName` to `headerValue` on every request.
                public init(headerName: String, headerValue: String) {
                    self.headerName = headerName
                    self.headerValue = headerValue
                }

                /// The defaults.
                public static let `default` = Configuration(headerName: "X-\(name)", headerValue: "1")
            }

            /// Where ``Client/Builder`` places it: after the request is shaped, before the cache
            /// key is taken and the request is signed.
            public static let defaultPosition = MiddlewarePosition.application

            /// How it behaves.
            public let configuration: Configuration

            /// A middleware with `configuration`, or the defaults.
            public init(configuration: Configuration = .default) {
                self.configuration = configuration
            }

            public func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
                var request = request
                try request.headers.set(name: configuration.headerName, value: configuration.headerValue)
                return try await next(request, context)
            }
        }

        """
    }

    static func article(_ name: String, _ module: String) -> String {
        """
        # ``\(module)``

        <#What the module is for, in one sentence.#>

        ## Overview

        ``\(name)Middleware`` sets a header on every request. Add it to a client's builder; the
        builder puts it at its ``\(name)Middleware/defaultPosition`` in the default order.

        ## Topics

        ### The middleware

        - ``\(name)Middleware``

        """
    }

    static func test(_ name: String, _ module: String) -> String {
        // Sorted, as swift-format's OrderedImports wants them.
        let imports = ["Foundation", "Sluice", "SluiceTesting", "Testing", module].sorted().map { "import \($0)" }.joined(separator: "\n")
        return """
            \(imports)

            @Suite("\(name)Middleware")
            struct \(name)MiddlewareTests {
                @Test func setsItsHeaderOnTheForwardedRequest() async throws {
                    let harness = MiddlewareHarness(\(name)Middleware(), replies: [.status(.ok)])
                    let response = try await harness.send(HTTPRequest(url: URL(string: "https://example.com")!))
                    #expect(response.status == .ok)
                    #expect(harness.forwarded.first?.headers["X-\(name)"] == "1")
                }

                @Test func aBadHeaderValueIsAnInvalidHeaderErrorNamingThisStage() async throws {
                    let middleware = \(name)Middleware(configuration: .init(headerName: "X-\(name)", headerValue: "a\\r\\nb"))
                    let harness = MiddlewareHarness(middleware, replies: [.status(.ok)])
                    await #expect {
                        try await harness.send(HTTPRequest(url: URL(string: "https://example.com")!))
                    } throws: { error in
                        let error = error as? SluiceError
                        return error?.code == .invalidHeader && error?.stage == .middleware(\(name)Middleware.self)
                    }
                    #expect(harness.forwarded.isEmpty)
                }
            }

            """
    }

    static func manifest(_ module: String) -> String {
        """

        Add to Package.swift:
          products:  .library(name: "\(module)", targets: ["\(module)"]),
          targets:   .target(name: "\(module)", dependencies: ["Sluice"]),
                     .testTarget(name: "\(module)Tests", dependencies: ["\(module)", "Sluice", "SluiceTesting"]),
        (In a package of your own, "Sluice" and "SluiceTesting" are .product(name:package:) dependencies.)
        Then: swift test --filter \(module)Tests
        """
    }
}
