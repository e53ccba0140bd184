package cdxj

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mementokit/mementokit/internal/sampledata"
)

// FuzzValidJSON checks the one-pass validator of CDXJ JSON blocks against
// encoding/json.Valid: it accepts exactly the same inputs, the top-level
// members it indexes are those the lazy scanner finds, and CheckJSON of a
// CDXJ line with that block agrees. The seeds are the JSON blocks of the
// real CDXJ samples and odd shapes around each rule of the grammar.
func FuzzValidJSON(f *testing.F) {
	for _, name := range sampledata.IndexFiles() {
		data, err := sampledata.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			if i := bytes.IndexByte(line, '{'); i >= 0 {
				f.Add(line[i:])
			}
		}
	}
	for _, s := range []string{
		`{}`, ` {} `, `{"a":1}`, `{"a" : [ ] , "b" : { } }`, `[]`, `[1,2]`, `"x"`, `1`, `-0.5e+7`, `true`, `null`, ``, ` `,
		`{"a":01}`, `{"a":-}`, `{"a":1.}`, `{"a":.5}`, `{"a":1e}`, `{"a":1e+}`, `{"a":+1}`, `{"a":0x1}`, `{"a":1E2}`,
		`{"a":nul}`, `{"a":nulll}`, `{"a":True}`, `{"a":tru}`, `{"a":fals}`,
		`{"a":"\u00e9"}`, `{"a":"\u00G9"}`, `{"a":"\u12"}`, `{"a":"\q"}`, `{"a":"\/\b\f\n\r\t\\\""}`, `{"a":"x\`,
		"{\"a\":\"\t\"}", "{\"a\":\"\x7f\xff\"}", "{\"a\":\"\x00\"}", "{\"a\":1}\x00",
		`{"a":1,}`, `{,}`, `{"a"}`, `{"a":}`, `{"a" 1}`, `{1:2}`, `{"a":1 "b":2}`, `{"a":[1,]}`, `{"a":[,1]}`, `{"a":[1}`, `{"a":{]}`,
		`{"a":1}}`, `{"a":1} {}`, `{"a":1} x`, `{"datetime"="Sat"}`, `{"a": "]}"}`, `{"k\"ey": "v\\"}`,
		`{"url": "http://example.com/", "mime": "text/html", "status": "200", "digest": "sha1:AAAA", "length": "1043", "offset": "333", "filename": "a.warc.gz"}`,
		`{"a":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`,
		strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
		strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var x jsonIndex
		pos, msg := x.validate(b)
		want := json.Valid(b)
		if (pos < 0) != want {
			t.Fatalf("validate(%q) = %d, %q; json.Valid = %v", b, pos, msg, want)
		}
		if pos > len(b) || pos >= 0 && msg == "" {
			t.Fatalf("validate(%q) = %d, %q: a fault needs an offset within the block and a reason", b, pos, msg)
		}
		top := skipSpace(b, 0)
		object := want && b[top] == '{'
		if object {
			var lazy jsonIndex
			for lazy.scanNext(b) {
			}
			if lazy.state == jsonDone && !equalMembers(x.members, lazy.members) {
				t.Fatalf("validate(%q) indexes %v, the lazy scan %v", b, x.members, lazy.members)
			}
		}
		if len(b) == 0 || b[0] != '{' || bytes.ContainsAny(b, "\r\n") {
			return
		}
		rec, err := ParseLine(append([]byte("k 2014 "), b...), nil)
		if err != nil {
			return
		}
		if err := rec.CheckJSON(); (err == nil) != object {
			t.Fatalf("CheckJSON of block %q = %v; json.Valid = %v", b, err, want)
		}
	})
}

func equalMembers(a, b []jsonMember) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
