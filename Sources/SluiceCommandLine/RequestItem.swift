import Foundation

/// One `ITEM` after the URL, in httpie's syntax: a header, a query parameter, a JSON field (a
/// string, or raw JSON), or a file for a multipart form.
///
/// ```swift
/// import SluiceCommandLine
///
/// try RequestItem(parsing: "X-Api-Key:abc")      // .header("X-Api-Key", "abc")
/// try RequestItem(parsing: "User-Agent:")        // .removeHeader("User-Agent")
/// try RequestItem(parsing: "X-Empty;")           // .header("X-Empty", "")
/// try RequestItem(parsing: "q==café")            // .query("q", "café")
/// try RequestItem(parsing: "name=Ada")           // .field("name", "Ada")
/// try RequestItem(parsing: "age:=36")            // .jsonField("age", "36")
/// try RequestItem(parsing: "photo@/tmp/a.jpg")   // .file("photo", "/tmp/a.jpg")
/// try RequestItem(parsing: "bio=@bio.txt")       // .fieldFromFile("bio", "bio.txt")
/// try RequestItem(parsing: "tags:=@tags.json")   // .jsonFieldFromFile("tags", "tags.json")
/// ```
///
/// The separator that comes first wins; at the same place the longer one does (`:=` before `:`,
/// `==` before `=`, `=@` before `=`, `:=@` before `:=`). A backslash before a separator character
/// keeps it in the name. As in httpie, `Header:` with nothing after it removes the header (one
/// curl would add, like `User-Agent` or `Accept`), and `Header;` sends it empty. A JSON field's
/// name may be a path (`user[name]=Bob`, `tags[]=a`, `list[0]:=1`), as httpie nests them.
package enum RequestItem: Sendable, Hashable {
    /// `Name:value`: a header field (`Name;`: an empty one).
    case header(String, String)
    /// `Name:`: the field is left out, even one the transport adds by default.
    case removeHeader(String)
    /// `name==value`: a query parameter.
    case query(String, String)
    /// `name=value`: a string field of the JSON or form body.
    case field(String, String)
    /// `name:=json`: a raw JSON field of the body.
    case jsonField(String, String)
    /// `name@path`: a file in a multipart body.
    case file(String, String)
    /// `name=@path`: a string field whose value is the file's text.
    case fieldFromFile(String, String)
    /// `name:=@path`: a raw JSON field read from a file.
    case jsonFieldFromFile(String, String)

    /// Reads one item from the command line.
    package init(parsing text: String) throws(UsageError) {
        let characters = Array(text)
        var name = ""
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character == "\\", index + 1 < characters.count, ":=@;".contains(characters[index + 1]) {
                name.append(characters[index + 1])
                index += 2
                continue
            }
            let rest = String(characters[(index + 1)...])
            switch character {
            case ":" where rest.hasPrefix("=@"):
                self = .jsonFieldFromFile(name, String(rest.dropFirst(2)))
            case ":" where rest.hasPrefix("="):
                self = .jsonField(name, String(rest.dropFirst()))
            case "=" where rest.hasPrefix("="):
                self = .query(name, String(rest.dropFirst()))
            case "=" where rest.hasPrefix("@"):
                self = .fieldFromFile(name, String(rest.dropFirst()))
            case "=":
                self = .field(name, rest)
            case "@":
                self = .file(name, rest)
            case ":":
                let value = rest.hasPrefix(" ") ? String(rest.dropFirst()) : rest
                self = value.isEmpty ? .removeHeader(name) : .header(name, value)
            case ";" where rest.isEmpty:
                self = .header(name, "")
            default:
                name.append(character)
                index += 1
                continue
            }
            guard !name.isEmpty else {
                throw UsageError("\(String(reflecting: text)) has no name before its separator")
            }
            return
        }
        throw UsageError(
            "\(String(reflecting: text)) is not an item: use Header:Value, Header:, Header;, name==value, field=value, field:=json, "
                + "field=@file, field:=@file or field@file")
    }
}
