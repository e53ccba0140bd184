package cdxj

import (
	"bytes"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzAppendObjectLine: any line of a pywb output=json answer either
// gives an error or a CDXJ line whose key and timestamp are the object's.
func FuzzAppendObjectLine(f *testing.F) {
	for _, rec := range loadRecorded(f, "cdxtoolkit_test_multi_cc1_slow_1.jsonl", "cdxtoolkit_test_multi_cc1_slow_7.jsonl") {
		for _, l := range strings.Split(rec.Body, "\n") {
			f.Add([]byte(l))
		}
	}
	f.Add([]byte(`{"urlkey": "a b", "timestamp": 20200101000000, "x": [1, {"y": "}"}]}`))
	f.Add([]byte(`{"urlkey": "k\u0020", "timestamp": "2020"}`))
	f.Add([]byte(`{"timestamp": "2020"}`))
	f.Add([]byte(`{"urlkey": "0", "timestamp": "0 \r", "": "\r"}`))
	f.Add([]byte(`{"urlkey": "k", "timestamp": "2020"`))
	f.Fuzz(func(t *testing.T, obj []byte) {
		if bytes.IndexByte(obj, '\n') >= 0 {
			return // an answer's lines are split on line feeds before
		}
		line, err := appendObjectLine([]byte("x"), obj)
		if err != nil {
			if string(line) != "x" {
				t.Fatalf("error %v but wrote %q", err, line)
			}
			return
		}
		line = line[1:]
		if bytes.IndexByte(line, '\n') >= 0 || bytes.HasSuffix(line, []byte("\r")) {
			t.Fatalf("line break in %q", line)
		}
		rec, err := ParseLine(line, nil)
		if err != nil {
			return // a timestamp that is not one, say
		}
		if !rec.IsCDXJ() {
			t.Fatalf("%q is not read back as CDXJ", line)
		}
	})
}

// FuzzRowReader: a JSON answer of rows is read row by row without
// panicking, every row turns into a line of as many fields as values.
func FuzzRowReader(f *testing.F) {
	for _, rec := range loadRecorded(f, "cdxtoolkit_test_multi_ia.jsonl", "cdxtoolkit_test_capture_object.jsonl") {
		f.Add([]byte(rec.Body))
	}
	f.Add([]byte(`[["urlkey","timestamp"],["a",1,null,true],[],["key%20x"]]`))
	f.Add([]byte(`[["a b","c"]`))
	f.Add([]byte(`[[["nested"]]]`))
	f.Add([]byte(`{"not": "rows"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		rr := newRowReader(bytes.NewReader(body), 1<<12)
		for range 10000 {
			row, err := rr.next()
			if err != nil {
				return
			}
			line := appendRowLine(nil, row, -1)
			if n := len(strings.Split(string(line), " ")); len(row) > 0 && n != len(row) {
				t.Fatalf("row %q gave %d fields: %q", row, n, line)
			}
		}
		t.Fatal("more than 10000 rows from a short input")
	})
}

// FuzzReadText: a text answer is read line by line; lines after a blank
// line are never index lines.
func FuzzReadText(f *testing.F) {
	f.Add([]byte(strings.Join(iaArchiveOrg, "\n") + "\n\norg%2Carchive%29%2F+19980109140106%21\n"))
	f.Add([]byte("a\r\n\r\nb\nc"))
	f.Add([]byte(outbackWarning + "\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		s := &Server{o: ServerOptions{MaxLineSize: 256}}
		n := 0
		var got [][]byte
		var key string
		_ = s.readText(bytes.NewReader(body), &n, nil, func(l []byte, _ *Layout) error {
			if len(bytes.TrimSpace(l)) == 0 {
				t.Fatalf("blank line yielded")
			}
			got = append(got, bytes.Clone(l))
			return nil
		}, &key)
		if len(got) > bytes.Count(body, []byte("\n"))+1 {
			t.Fatalf("%d lines from %d line breaks", len(got), bytes.Count(body, []byte("\n")))
		}
	})
}

// FuzzParsePageCount: never panics; a count is never negative.
func FuzzParsePageCount(f *testing.F) {
	f.Add([]byte(`{"pages": 1, "pageSize": 5, "blocks": 1}`))
	f.Add([]byte("123\n"))
	f.Add([]byte(`{"pages": -1}`))
	f.Add([]byte(`{"blocks": 3}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		if pc, ok := parsePageCount(body); ok && pc.Pages < 0 {
			t.Fatalf("%q: %+v", body, pc)
		}
	})
}

// FuzzParseRequest: a request that parses survives Values and parses to
// the same value again; Run over a small index never panics on it.
func FuzzParseRequest(f *testing.F) {
	for _, q := range []string{
		"url=archive.org&limit=-2", "url=*.archive.org&filter=!~mime:t.*&collapse=timestamp:6&fl=urlkey,digest&output=text",
		"url=archive.org/*&sort=closest&closest=1998&limit=3", "url=archive.org&page=2&pageSize=3&showNumPages=1",
		"url=archive.org&from=1997&to=1998&sort=reverse&filter==length:1405", "url=0**", "url=*.*.x",
	} {
		f.Add(q)
	}
	s := sortedFile(f, iaArchiveOrg)
	f.Fuzz(func(t *testing.T, q string) {
		v, err := url.ParseQuery(q)
		if err != nil {
			return
		}
		r, err := ParseRequest(v)
		if err != nil {
			return
		}
		back, err := ParseRequest(r.Values())
		if err != nil {
			t.Fatalf("%q: parsed, but its Values %q do not: %v", q, r.Values().Encode(), err)
		}
		if diff := cmp.Diff(r, back, cmp.Comparer(func(a, b Filter) bool { return a.String() == b.String() })); diff != "" {
			t.Fatalf("%q: round trip (-first +second):\n%s", q, diff)
		}
		r.Paged = false
		n := 0
		for rec, err := range r.Run(s, &RunOptions{MaxBuffered: 20}) {
			if err == nil {
				if _, err := r.AppendRecord(nil, rec); err != nil {
					t.Fatal(err)
				}
			}
			if n++; n > 100 {
				t.Fatal("more lines than the index holds")
			}
		}
	})
}
