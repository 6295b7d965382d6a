import Foundation
import Sluice
import SluiceCommandLine
import SluiceTestSupport
import SluiceTesting
import Testing

@Suite struct RequestItemTests {
    @Test(arguments: [
        ("X-Api-Key:abc", RequestItem.header("X-Api-Key", "abc")),
        ("Accept: text/html", .header("Accept", "text/html")),
        ("X-Empty:", .header("X-Empty", "")),
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
        let expected = #""plain" is not an item: use Header:Value, name==value, field=value, field:=json, field=@file, field:=@file or field@file"#
        #expect(throws: UsageError(expected)) {
            try RequestItem(parsing: "plain")
        }
    }
}
