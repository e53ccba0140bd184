package ukvs

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWriterFigure2RoundTrip(t *testing.T) {
	r := NewReader(strings.NewReader(figure2))
	hs, err := r.Headers()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	w := NewWriter(&out)
	if err := w.WriteHeaders(hs); err != nil {
		t.Fatal(err)
	}
	for rec, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		f, err := rec.Frequency()
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteFrequency(rec.Key(), f); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(figure2, out.String()); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestWriter(t *testing.T) {
	type call struct {
		keys, values []string
		block        string
		err          error // nil, or the cause wanted
	}
	tests := []struct {
		name    string
		headers [][2]any
		calls   []call
		want    string
	}{
		{
			name:  "mementomap lines",
			calls: []call{{[]string{"com,example)/"}, []string{"5"}, "", nil}, {[]string{"com,example)/a"}, []string{"3/1"}, "", nil}},
			want:  "com,example)/ 5\ncom,example)/a 3/1\n",
		},
		{
			name: "out of order and duplicate refused, writer goes on",
			calls: []call{
				{[]string{"com,example)/a"}, []string{"3"}, "", nil},
				{[]string{"com,example)/"}, []string{"1"}, "", ErrOutOfOrder},
				{[]string{"com,example)/a"}, []string{"2"}, "", ErrDuplicateKey},
				{[]string{"com,example)/b"}, []string{"2"}, "", nil},
			},
			want: "com,example)/a 3\ncom,example)/b 2\n",
		},
		{
			name:    "headers, two keys, quoting and a JSON block",
			headers: [][2]any{{"id", map[string]string{"uri": "http://archive.example.org/"}}, {"fields", `{keys: ["surt", "datetime"], values: ["frequency", "note"]}`}},
			calls: []call{
				{[]string{"com,twitter)/*", "2014"}, []string{"20~/10", "two words"}, "", nil},
				{[]string{"com,twitter)/*", "2015"}, []string{"60+/30+", ""}, `{by: "crawler"}`, nil},
				{[]string{"com,twitter)/*", "2015"}, []string{"1", "-"}, "", ErrDuplicateKey},
				{[]string{"com,twitter)/*", ":"}, []string{"100/35", `say "hi"` + "\t\\"}, "", nil},
				{[]string{"com,twitter)/*"}, []string{"1", "-"}, "", ErrFieldCount},
				{[]string{"com,twitter,www)/", "2015"}, []string{"1", "-"}, `{bad`, ErrJSON},
				{[]string{"com,twitter,www)/", "2015"}, []string{"1", "-"}, `[1]`, ErrJSON},
			},
			want: `!id {"uri":"http://archive.example.org/"}
!fields {keys: ["surt", "datetime"], values: ["frequency", "note"]}
com,twitter)/* 2014 20~/10 "two words"
com,twitter)/* 2015 60+/30+ "" {by: "crawler"}
com,twitter)/* : 100/35 "say \"hi\"\t\\"
`,
		},
		{
			name:  "a key starting with ! is quoted",
			calls: []call{{[]string{"!x"}, []string{"1"}, "", nil}},
			want:  "\"!x\" 1\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			w := NewWriter(&out)
			for _, h := range tt.headers {
				if err := w.WriteHeader(h[0].(string), h[1]); err != nil {
					t.Fatal(err)
				}
			}
			for i, c := range tt.calls {
				var block []byte
				if c.block != "" {
					block = []byte(c.block)
				}
				err := w.Write(c.keys, c.values, block)
				if !errors.Is(err, c.err) || (err == nil) != (c.err == nil) {
					t.Errorf("call %d: Write = %v, want %v", i, err, c.err)
				}
				var pe *ParseError
				if err != nil && !errors.As(err, &pe) {
					t.Errorf("call %d: error %T is not a *ParseError", i, err)
				}
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, out.String()); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
			// Whatever the writer accepted reads back and checks clean.
			n, err := Check(strings.NewReader(out.String()))
			if err != nil {
				t.Errorf("Check(output) = %v", err)
			}
			if want := int64(strings.Count(tt.want, "\n") - len(tt.headers)); n != want {
				t.Errorf("Check counted %d data lines, want %d", n, want)
			}
		})
	}
}

func TestWriterLateHeaderAndBadHeaders(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	if err := w.WriteHeader("fields", Fields{Keys: nil}); !errors.Is(err, ErrHeader) {
		t.Errorf("!fields without keys: %v", err)
	}
	if err := w.WriteHeader("bad name", "{}"); !errors.Is(err, ErrHeader) {
		t.Errorf("header name with a space: %v", err)
	}
	if err := w.WriteHeader("meta", "{x: }"); !errors.Is(err, ErrJSON) {
		t.Errorf("bad JSON: %v", err)
	}
	if err := w.WriteHeader("meta", json.RawMessage(`{"a":1}`)); err != nil {
		t.Error(err)
	}
	if err := w.WriteFrequency([]byte("a"), Frequency{URIM: Exactly(1)}); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteHeader("meta", "{}"); !errors.Is(err, ErrLateHeader) {
		t.Errorf("late header: %v", err)
	}
	if err := w.WriteFrequency([]byte("a"), Frequency{}); !errors.Is(err, ErrDuplicateKey) {
		t.Errorf("duplicate: %v", err)
	}
	w.Flush()
	if got, want := out.String(), "!meta {\"a\":1}\na 1\n"; got != want {
		t.Errorf("output %q, want %q", got, want)
	}
	w2 := NewWriter(&out)
	w2.WriteHeader("fields", `{keys: ["a", "b"], values: ["frequency"]}`)
	if err := w2.WriteFrequency([]byte("a"), Frequency{}); !errors.Is(err, ErrFieldCount) {
		t.Errorf("WriteFrequency with two key columns: %v", err)
	}
}

func TestWriterRecordCopy(t *testing.T) {
	in := "!fields {keys: [\"k\"], values: [\"v\", \"frequency\"]}\n\"a b\" x 1 {j: 1}\nb - 2\n"
	r := NewReader(strings.NewReader(in))
	hs, _ := r.Headers()
	var out bytes.Buffer
	w := NewWriter(&out)
	w.WriteHeaders(hs)
	for rec, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteRecord(rec); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	if out.String() != in {
		t.Errorf("copy = %q, want %q", out.String(), in)
	}
}

func TestCreateCommitAndAbandon(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "map.ukvs")
	if err := os.WriteFile(path, []byte("old 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteFrequency([]byte("new"), Frequency{URIM: Exactly(2)})
	f.Flush()
	if b, _ := os.ReadFile(path); string(b) != "old 1\n" {
		t.Errorf("target changed before Commit: %q", b)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if b, _ := os.ReadFile(path); string(b) != "new 2\n" {
		t.Errorf("after Commit: %q", b)
	}
	g, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	g.WriteFrequency([]byte("zzz"), Frequency{})
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if err := g.Commit(); err == nil {
		t.Error("Commit after Close succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("abandoned temp file left behind: %v", entries)
	}
	if b, _ := os.ReadFile(path); string(b) != "new 2\n" {
		t.Errorf("after Close: %q", b)
	}
}
