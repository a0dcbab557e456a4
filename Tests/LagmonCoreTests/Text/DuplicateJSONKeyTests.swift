import LagmonCore
import Testing

struct DuplicateJSONKeyTests {
    @Test(arguments: [
        (#"{"budgets": [], "budgets": [1]}"#, "budgets", ""),
        (#"{"a": {"b": 1, "c": {"d": 2, "d": 3}}}"#, "d", "a.c"),
        (#"{"budgets": [{"x": 1}, {"level": "off", "l\u0065vel": "error"}]}"#, "level", "budgets[1]"),
        (#"[{"k": 1}, {"k": 2, "k": 3}]"#, "k", "[1]"),
        (#"{"a\"b": 1, "a\"b": 2}"#, "a\"b", ""),
        (#"{"😀": 1, "\ud83d\ude00": 2}"#, "😀", ""),
    ])
    func findsTheFirstKeyGivenTwiceInOneObject(text: String, key: String, path: String) {
        #expect(DuplicateJSONKey.find(in: Array(text.utf8)) == DuplicateJSONKey(key: key, objectPath: path))
    }

    @Test(arguments: [
        #"{"a": 1, "b": {"a": 2}, "c": [{"a": 3}, {"a": 4}]}"#,
        #"{"a": "a", "b": ["a", "a"], "c": "\"a\": 1"}"#,
        #"{"a": 1, "A": 2}"#,
        "",
        #"{"a": "#,
        #"{"a": "\u12"}"#,
    ])
    func keysInDifferentObjectsValuesAndBrokenTextAreNoDuplicates(text: String) {
        #expect(DuplicateJSONKey.find(in: Array(text.utf8)) == nil)
    }

    @Test func describesTheKeyAndWhereItIs() {
        #expect(
            DuplicateJSONKey(key: "level", objectPath: "budgets[1]").description
                == #"duplicate key "level" in budgets[1]"#)
        #expect(DuplicateJSONKey(key: "budgets", objectPath: "").description == #"duplicate key "budgets""#)
    }
}
