/// What `sluice --help` prints: the usage, every item and flag, the environment variables, and
/// the exit codes.
///
/// ```swift
/// import SluiceCommandLine
///
/// print(HelpText.text)
/// ```
package enum HelpText {
    /// The text `sluice --help` prints.
    package static var text: String {
        let options = Invocation.flags.flatMap(\.helpLines)
        let codes = ExitCode.allCases.map { "  \(String($0.rawValue).padding(toLength: 4, withPad: " ", startingAt: 0))\($0.meaning)" }
        return """
            sluice: an HTTP client built from Sluice's middleware, in the spirit of httpie and curl.

            Usage: sluice [METHOD] URL [ITEM…] [OPTIONS]

              METHOD   GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS or TRACE; GET without a body,
                       POST with one.
              URL      http:// or https://; "example.com/x" means http://example.com/x (only a
                       scheme at the start counts), ":8080/x" http://localhost:8080/x.

            Items:
              Header:Value       a request header; "Header:" leaves it out (curl's too), "Header;"
                                 sends it empty
              name==value        a query parameter
              field=value        a string field of the JSON object (of the form with --form);
                                 JSON names nest: user[name]=Bob, tags[]=a, list[0]:=1
              field:=json        a raw JSON field, sent as written: field:=36, tags:='["a","b"]'
              field=@path        a string field holding the file's text
              field:=@path       a raw JSON field read from a file
              field@path         a file: the body becomes multipart/form-data
              A backslash keeps a separator in a name: a\\:b==1.
              With no data items, what is piped to standard input is the body (-I: never); a piped
              body and data items together are refused.

            Options:
            \(options.joined(separator: "\n"))

            Exit codes:
            \(codes.joined(separator: "\n"))

            Examples:
              sluice httpbin.org/get q==sluice
              sluice -v POST api.example.com/notes title=Hello draft:=true Authorization:"Bearer $TOKEN"
              sluice POST api.example.com/upload caption=Holiday photo@~/beach.jpg
              sluice --cache --retry 3 api.example.com/feed
              sluice -L -d -c -o debian.iso https://cdimage.debian.org/…/debian.iso
            """
    }
}
