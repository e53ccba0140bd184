package ukvs

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// figure2 is the MementoMap of the paper's Figure 2 (headers as in the
// ORS draft, whose examples leave JSON keys unquoted).
const figure2 = `!context ["http://oduwsdl.github.io/contexts/ukvs"]
!id {uri: "http://archive.example.org/"}
!fields {keys: ["surt"], values: ["frequency"]}
!meta {type: "MementoMap", name: "A Test Web Archive", year: 1996}
!meta {updated_at: "2018-09-03T13:27:52Z"}
* 54321/20000
com,* 10000+
org,arxiv)/ 100
org,arxiv)/* 2500~/900
org,arxiv)/pdf/* 0
uk,co,bbc)/images/* 300+/20-
`

// line is a Record flattened for comparison.
type line struct {
	Line   int64
	Keys   []string
	Values []string
	JSON   string
}

func flatten(r *Record) line {
	l := line{Line: r.Line, JSON: string(r.JSON)}
	for _, k := range r.Keys {
		l.Keys = append(l.Keys, string(k))
	}
	for _, v := range r.Values {
		l.Values = append(l.Values, string(v))
	}
	return l
}

// readAll reads every record, collecting parse errors and going on.
func readAll(r *Reader) ([]line, []error, error) {
	var got []line
	var perrs []error
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return got, perrs, nil
		}
		var pe *ParseError
		if errors.As(err, &pe) {
			perrs = append(perrs, err)
			continue
		}
		if err != nil {
			return got, perrs, err
		}
		got = append(got, flatten(rec))
	}
}

func TestReaderFigure2(t *testing.T) {
	r := NewReader(strings.NewReader(figure2))
	hs, err := r.Headers()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, h := range hs {
		names = append(names, h.Name)
	}
	if diff := cmp.Diff([]string{"context", "id", "fields", "meta", "meta"}, names); diff != "" {
		t.Errorf("header names (-want +got):\n%s", diff)
	}
	if id, _ := hs.Get(HeaderID); string(id.Value) != `{"uri": "http://archive.example.org/"}` || id.Raw != `{uri: "http://archive.example.org/"}` {
		t.Errorf("!id = %s (raw %s)", id.Value, id.Raw)
	}
	meta, err := hs.Meta()
	if err != nil {
		t.Fatal(err)
	}
	wantMeta := map[string]any{"type": "MementoMap", "name": "A Test Web Archive", "year": 1996.0, "updated_at": "2018-09-03T13:27:52Z"}
	if diff := cmp.Diff(wantMeta, meta); diff != "" {
		t.Errorf("Meta (-want +got):\n%s", diff)
	}
	var got []string
	for rec, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		f, err := rec.Frequency()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(rec.Key())+" "+f.String())
	}
	want := strings.Split(strings.TrimSpace(figure2), "\n")[5:]
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
}

func TestReader(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		want  []line
		errs  []string // ParseError messages, in order
		check func(*testing.T, *Reader)
	}{
		{
			name: "no headers defaults to surt frequency",
			in:   "com,example)/ 5\ncom,example)/a 3/1\n",
			want: []line{{1, []string{"com,example)/"}, []string{"5"}, ""}, {2, []string{"com,example)/a"}, []string{"3/1"}, ""}},
		},
		{
			name: "no trailing newline, CRLF and blank lines",
			in:   "a 1\r\n\r\n   \nb 2",
			want: []line{{1, []string{"a"}, []string{"1"}, ""}, {4, []string{"b"}, []string{"2"}, ""}},
		},
		{
			name: "draft people example: quotes, placeholder, JSON blocks, runs of spaces",
			in: `!fields {keys: ["lname", "fname"], values: ["qualification", "profession"]}
Doe   Jane    PhD     Professor             {home: "https://example.edu/members/jdoe"}
Doe   John    Masters "Business Consultant"
Roe   Richard PhD     Scientist             {dob: "May 7, 1920", awards: ["Fiction 42", "Mad Scientist"]}
Shmoe Joe     -       Assistant
`,
			want: []line{
				{2, []string{"Doe", "Jane"}, []string{"PhD", "Professor"}, `{home: "https://example.edu/members/jdoe"}`},
				{3, []string{"Doe", "John"}, []string{"Masters", "Business Consultant"}, ""},
				{4, []string{"Roe", "Richard"}, []string{"PhD", "Scientist"}, `{dob: "May 7, 1920", awards: ["Fiction 42", "Mad Scientist"]}`},
				{5, []string{"Shmoe", "Joe"}, []string{"-", "Assistant"}, ""},
			},
		},
		{
			name: "datetime as a second key",
			in: `!fields {keys: ["surt", "datetime"], values: ["frequency"]}
com,twitter)/* :	100/35
com,twitter)/* 2014 20~/10
`,
			want: []line{
				{2, []string{"com,twitter)/*", ":"}, []string{"100/35"}, ""},
				{3, []string{"com,twitter)/*", "2014"}, []string{"20~/10"}, ""},
			},
		},
		{
			name: "escaped quote",
			in:   `"a \"b\" \\c" 1` + "\n" + `"" 2` + "\n",
			want: []line{{1, []string{`a "b" \c`}, []string{"1"}, ""}, {2, []string{""}, []string{"2"}, ""}},
		},
		{
			name: "bad lines are reported and skipped",
			in:   "a 1\nb\nc 1 2\n\"d 1\ne\" 1\n\"f\"x 1\ng 3\n",
			want: []line{{1, []string{"a"}, []string{"1"}, ""}, {5, []string{`e"`}, []string{"1"}, ""}, {7, []string{"g"}, []string{"3"}, ""}},
			errs: []string{
				"ukvs: line 2: wrong number of columns: 1 columns, want 2",
				"ukvs: line 3, column 5: wrong number of columns: more than 2 columns and no JSON block",
				"ukvs: line 4, column 1: bad quoted column: no closing quote",
				"ukvs: line 6, column 4: bad quoted column: text after the closing quote",
			},
		},
		{
			name: "late header",
			in:   "a 1\n!meta {}\nb 2\n",
			want: []line{{1, []string{"a"}, []string{"1"}, ""}, {3, []string{"b"}, []string{"2"}, ""}},
			errs: []string{"ukvs: line 2, column 1: header line after the first data line"},
		},
		{
			name: "bad header then data",
			in:   "!meta {type: }\n!fields {keys: 3}\n!\na 1\n",
			want: []line{{4, []string{"a"}, []string{"1"}, ""}},
			errs: []string{"ukvs: line 1: invalid JSON block: invalid character '}' looking for beginning of value (at byte 7 of the value)"},
		},
		{
			name: "header without a value",
			in:   "!sorted\na 1\n",
			want: []line{{2, []string{"a"}, []string{"1"}, ""}},
			check: func(t *testing.T, r *Reader) {
				hs, _ := r.Headers()
				if diff := cmp.Diff(Headers{{Name: "sorted"}}, hs); diff != "" {
					t.Errorf("headers (-want +got):\n%s", diff)
				}
			},
		},
		{
			name: "empty input",
			in:   "",
		},
		{
			name: "headers only",
			in:   "!fields {\"keys\": [\"k\"], \"values\": []}\n",
		},
		{
			name: "keys only layout",
			in:   "!fields {keys: [\"k\"], values: []}\nx\ny {\"a\":1}\n",
			want: []line{{2, []string{"x"}, nil, ""}, {3, []string{"y"}, nil, `{"a":1}`}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, wrap := range []struct {
				name string
				fn   func(io.Reader) io.Reader
			}{
				{"plain", func(r io.Reader) io.Reader { return r }},
				{"OneByteReader", iotest.OneByteReader},
				{"DataErrReader", iotest.DataErrReader},
				{"HalfReader", iotest.HalfReader},
			} {
				r := NewReader(wrap.fn(strings.NewReader(tt.in)))
				got, perrs, err := readAll(r)
				if err != nil {
					t.Fatalf("%s: %v", wrap.name, err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("%s: records (-want +got):\n%s", wrap.name, diff)
				}
				var msgs []string
				for _, e := range perrs {
					msgs = append(msgs, e.Error())
				}
				if diff := cmp.Diff(tt.errs, msgs); diff != "" {
					t.Errorf("%s: errors (-want +got):\n%s", wrap.name, diff)
				}
				if tt.check != nil {
					tt.check(t, r)
				}
			}
		})
	}
}

func TestReaderLineTooLong(t *testing.T) {
	long := strings.Repeat("x", 200<<10)
	in := "a 1\n" + long + " 2\nb 3\n" + long + " 4"
	r := NewReader(strings.NewReader(in))
	r.MaxLineLength = 100 << 10
	got, perrs, err := readAll(r)
	if err != nil {
		t.Fatal(err)
	}
	want := []line{{1, []string{"a"}, []string{"1"}, ""}, {3, []string{"b"}, []string{"3"}, ""}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	if len(perrs) != 2 || !errors.Is(perrs[0], ErrLineTooLong) || !errors.Is(perrs[1], ErrLineTooLong) {
		t.Fatalf("errors = %v, want two ErrLineTooLong", perrs)
	}
	var pe *ParseError
	errors.As(perrs[1], &pe)
	if pe.Line != 4 {
		t.Errorf("second long line reported at line %d, want 4", pe.Line)
	}
	if r.Offset() != int64(len(in)) {
		t.Errorf("Offset() = %d, want %d", r.Offset(), len(in))
	}
	// The same lines within the limit are read whole.
	r = NewReader(strings.NewReader(in))
	got, perrs, err = readAll(r)
	if err != nil || len(perrs) != 0 || len(got) != 4 || got[1].Keys[0] != long || got[3].Keys[0] != long {
		t.Errorf("default limit: %d records, errors %v, %v", len(got), perrs, err)
	}
}

func TestReaderIOError(t *testing.T) {
	boom := errors.New("boom")
	r := NewReader(io.MultiReader(strings.NewReader("a 1\nb 2\n"), iotest.ErrReader(boom)))
	got, _, err := readAll(r)
	if !errors.Is(err, boom) || len(got) != 2 {
		t.Fatalf("got %d records and %v, want 2 and boom", len(got), err)
	}
	if _, err := r.Read(); !errors.Is(err, boom) {
		t.Errorf("I/O error is not sticky: %v", err)
	}
	n := 0
	for _, err := range NewReader(io.MultiReader(strings.NewReader("a 1\n"), iotest.ErrReader(boom))).All() {
		n++
		if n == 2 && !errors.Is(err, boom) {
			t.Errorf("All yielded %v, want boom", err)
		}
	}
	if n != 2 {
		t.Errorf("All yielded %d times, want 2", n)
	}
}

func TestRecordDecodeJSONAndClone(t *testing.T) {
	in := "com,twitter)/* 100/35 {datetime: {\"2014\": \"20~/10\", \"2015\": \"60+/30+\"}}\nbad 1 {x: }\n"
	r := NewReader(strings.NewReader(in))
	rec, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	keep := rec.Clone()
	var v struct {
		Datetime map[string]Frequency `json:"datetime"`
	}
	if err := rec.DecodeJSON(&v); err != nil {
		t.Fatal(err)
	}
	if got := v.Datetime["2015"].String(); got != "60+/30+" {
		t.Errorf("datetime 2015 = %s", got)
	}
	rec, err = r.Read()
	if err != nil {
		t.Fatal(err)
	}
	err = rec.DecodeJSON(&v)
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 2 || pe.Column != 7 || !errors.Is(err, ErrJSON) {
		t.Errorf("DecodeJSON of a bad block = %v, want ParseError line 2 column 7 ErrJSON", err)
	}
	if string(keep.Key()) != "com,twitter)/*" || !bytes.HasPrefix(keep.JSON, []byte("{datetime")) {
		t.Errorf("clone changed by later reads: %+v", flatten(keep))
	}
	if _, err := rec.Frequency(); err != nil {
		t.Errorf("Frequency: %v", err)
	}
}

func TestRecordFrequencyErrors(t *testing.T) {
	r := NewReader(strings.NewReader("a 1\nb 1x\n"))
	r.Read()
	rec, _ := r.Read()
	_, err := rec.Frequency()
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 2 || pe.Column != 3 || !errors.Is(err, ErrFrequency) {
		t.Errorf("Frequency() = %v, want ParseError line 2 column 3 ErrFrequency", err)
	}
	r = NewReader(strings.NewReader("!fields {keys: [\"k\"], values: [\"v\"]}\na 1\n"))
	rec, _ = r.Read()
	if _, err := rec.Frequency(); !errors.Is(err, ErrFieldCount) {
		t.Errorf("Frequency() without a frequency column = %v", err)
	}
}

func TestRelaxedJSON(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{keys: ["surt"], values: ["frequency"]}`, `{"keys": ["surt"], "values": ["frequency"]}`},
		{`{"a": true, b: null, c: [1, {d: "e:f"}]}`, `{"a": true, "b": null, "c": [1, {"d": "e:f"}]}`},
		{`["x", "y"]`, `["x", "y"]`},
		{`{updated_at: "2018"}`, `{"updated_at": "2018"}`},
		{`{s: "a \" b, c: d"}`, `{"s": "a \" b, c: d"}`},
	}
	for _, tt := range tests {
		got, err := RelaxedJSON([]byte(tt.in))
		if err != nil || string(got) != tt.want {
			t.Errorf("RelaxedJSON(%s) = %s, %v; want %s", tt.in, got, err, tt.want)
		}
		if !json.Valid(got) {
			t.Errorf("RelaxedJSON(%s) is not valid JSON", tt.in)
		}
	}
	for _, bad := range []string{`{a: b}`, `{"a": 1`, `{a: "x`, "{\"a\":\n1}", `{a 1}`} {
		if _, err := RelaxedJSON([]byte(bad)); !errors.Is(err, ErrJSON) {
			t.Errorf("RelaxedJSON(%q) error = %v, want ErrJSON", bad, err)
		}
	}
}

func TestParseLine(t *testing.T) {
	f := Fields{Keys: []string{"surt", "datetime"}, Values: []string{"frequency"}}
	var rec Record
	tests := []struct {
		name string
		in   string
		want line
		err  error
	}{
		{"plain", "com,x)/ 2014 5/1", line{Keys: []string{"com,x)/", "2014"}, Values: []string{"5/1"}}, nil},
		{"quoted with block", `"a \"b\"" : 1 {x: 1}`, line{Keys: []string{`a "b"`, ":"}, Values: []string{"1"}, JSON: "{x: 1}"}, nil},
		{"short", "com,x)/ 5", line{}, ErrFieldCount},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ParseLine([]byte(tt.in), f, &rec)
			if !errors.Is(err, tt.err) || (err == nil) != (tt.err == nil) {
				t.Fatalf("ParseLine = %v, want %v", err, tt.err)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tt.want, flatten(&rec)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if fr, err := rec.Frequency(); err != nil || fr.String() != tt.want.Values[0] {
				t.Errorf("Frequency() = %v, %v", fr, err)
			}
		})
	}
	line := []byte("com,x)/ 2014 5/1")
	if n := testing.AllocsPerRun(100, func() { ParseLine(line, f, &rec) }); n != 0 {
		t.Errorf("ParseLine allocates %v times per call", n)
	}
}

func TestParseErrorMessageHasOnePrefix(t *testing.T) {
	r := NewReader(strings.NewReader("a 1x\n"))
	rec, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	_, err = rec.Frequency()
	if got, want := err.Error(), `ukvs: line 1, column 3: invalid frequency "1x" at byte 1: expected '/' or a bound suffix (+ - ~)`; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
}
