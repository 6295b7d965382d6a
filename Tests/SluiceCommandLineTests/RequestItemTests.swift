import Foundation
import Sluice
import SluiceTestSupport
import SluiceTesting
import Testing

@testable import SluiceCommandLine

@Suite struct RequestItemTests {
    @Test(arguments: [
        ("X-Api-Key:abc", RequestItem.header("X-Api-Key", "abc")),
        ("Accept: text/html", .header("Accept", "text/html")),
        ("User-Agent:", .removeHeader("User-Agent")), ("X-Empty;", .header("X-Empty", "")), ("X-Empty: ", .removeHeader("X-Empty")),
        ("a\\;b=1", .field("a;b", "1")), ("a;b=1", .field("a;b", "1")),
        ("Authorization:Bearer a=b", .header("Authorization", "Bearer a=b")),
        ("q==café", .query("q", "café")),
        ("url==http://x/?a=1", .query("url", "http://x/?a=1")),
        ("name=Ada", .field("name", "Ada")),
        ("expr=a==b", .field("expr", "a==b")),
        ("age:=36", .jsonField("age", "36")),
        ("tags:=[\"a\",\"b\"]", .jsonField("tags", "[\"a\",\"b\"]")),
        ("bio=@~/bio.txt", .fieldFromFile("bio", "~/bio.txt")), ("tags:=@t.json", .jsonFieldFromFile("tags", "t.json")),
        ("q==@x", .query("q", "@x")), ("a\\=\\@b=c", .field("a=@b", "c")),
        ("photo@/tmp/a.jpg", .file("photo", "/tmp/a.jpg")),
        ("a\\:b==1", .query("a:b", "1")),
        ("mail\\@home=x", .field("mail@home", "x")),
    ])
    func itemsParse(text: String, item: RequestItem) throws {
        #expect(try RequestItem(parsing: text) == item)
    }

    @Test func badItemsSayWhy() {
        #expect(throws: UsageError(#""=x" has no name before its separator"#)) { try RequestItem(parsing: "=x") }
        let expected =
            #""plain" is not an item: use Header:Value, Header:, Header;, name==value, field=value, field:=json, field=@file, "#
            + "field:=@file or field@file"
        #expect(throws: UsageError(expected)) {
            try RequestItem(parsing: "plain")
        }
    }

    /// httpie's nested JSON, beside what httpie itself sends for the same items (checked with
    /// `http --offline --print=B` 3.2.4, and again against httpie by the binary's tests).
    @Test func nestedJSONFieldsBuildTheObjectHttpieBuilds() throws {
        var object = JSONPath.Object()
        for (name, json) in [
            ("a", #""1""#), ("a", #""2""#), ("user[name]", #""Bob""#), ("tags[]", #""a""#), ("tags[]", #""b""#), ("list[2]", "3"),
            ("x[y][z]", #""1""#), ("esc\\[0]", "true"),
        ] {
            try object.set(name, to: json, item: "\(name)=…")
        }
        #expect(object.text == #"{"a": "2", "user": {"name": "Bob"}, "tags": ["a", "b"], "list": [null, null, 3], "x": {"y": {"z": "1"}}, "esc[0]": true}"#)
    }

    @Test func nestedJSONMistakesSayWhich() {
        func error(_ items: [(String, String)]) -> String? {
            var object = JSONPath.Object()
            do {
                for (name, json) in items { try object.set(name, to: json, item: name + "=x") }
                return nil
            } catch { return error.message }
        }
        #expect(error([("a", #""1""#), ("a[b]", #""2""#)]) == #""a[b]=x": a is a string, so it has no keys"#)
        #expect(error([("a[b]", #""1""#), ("a[]", #""2""#)]) == #""a[]=x": a is an object, not an array"#)
        #expect(error([("a[", "1")]) == #""a[=x": a [ without its ]"#)
        #expect(error([("[x]", "1")]) == #""[x]=x": a path starts with a key, as in user[name]"#)
        #expect(error([("a[10001]", "1")]) == #""a[10001]=x": index 10001 is over 10000"#)
        #expect(error([("a[b]c", "1")]) == #""a[b]c=x": text after ] in the path; a key is written [key]"#)
    }
}
