package summary

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"github.com/mementokit/mementokit/cdxj"
	"io"
	"strings"
	"testing"
	"time"
)

// truncatedGzip returns a gzip stream of text cut after half its bytes.
func truncatedGzip(t *testing.T, text string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(text)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()[:b.Len()/2]
}

// Regression: a reader failing with io.ErrUnexpectedEOF (a truncated gzip
// member) made the compatibility reader loop for ever.
func TestCompatTruncatedGzipEnds(t *testing.T) {
	var text strings.Builder
	for i := 0; i < 2000; i++ {
		text.WriteString("com,example)/ 20200101000000 {\"url\": \"http://example.com/\", \"mime\": \"text/html\", \"status\": \"200\", \"length\": \"100\"}\n")
	}
	zr, err := gzip.NewReader(bytes.NewReader(truncatedGzip(t, text.String())))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	c := NewCompat(false, false, nil)
	go func() { done <- c.ReadFile("x.cdxj.gz", zr) }()
	select {
	case err := <-done:
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("ReadFile error = %v, want io.ErrUnexpectedEOF", err)
		}
		if c.Stats().FailedFiles != 1 {
			t.Errorf("FailedFiles = %d, want 1", c.Stats().FailedFiles)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("ReadFile did not return on a truncated gzip stream")
	}
}

// Regression: malformed counters were accepted (negative values, a period
// or counter given twice), and sums past int64 wrapped to negative values
// that Compact, Totals and Overlap then dropped silently.
func TestSummaryLineChecks(t *testing.T) {
	const max = `9223372036854775807`
	tests := []struct {
		name    string
		task    string // combine, totals, totals-noyear, overlap
		in      string
		wantErr string // "" for success; else a substring, after "in.sum:LINE: "
	}{
		{"negative counter", "combine", `a {"2020": {"n_total": -3}}` + "\n", `in.sum:1: counter n_total of period 2020 is negative`},
		{"period twice", "combine", `a {"2020": {"n_total": 1}, "2020": {"n_total": 2}}` + "\n", `in.sum:1: period 2020 given twice`},
		{"counter twice", "combine", `a {"2020": {"n_total": 1, "n_total": 5}}` + "\n", `in.sum:1: counter n_total given twice in period 2020`},
		{"combine overflow", "combine", `x {"2020": {"n_total": ` + max + `}}` + "\n" + `x {"2020": {"n_total": 1}}` + "\n", `in.sum:2: key "x" period 2020: summary: counter sum overflows int64`},
		{"combine max fits", "combine", `x {"2020": {"n_total": ` + max + `}}` + "\n" + `x {"2021": {"n_total": 1}}` + "\n", ""},
		{"totals noyear overflow", "totals-noyear", `x {"2020": {"n_total": ` + max + `}, "2021": {"n_total": 1}}` + "\n", `in.sum:1: key "x": summary: counter sum overflows int64`},
		{"overlap overflow", "overlap", `x {"2020": {"n_total": ` + max + `}}` + "\n" + `x {"2020": {"n_total": 1}}` + "\n", `in.sum:2: key "x" period 2020: summary: counter sum overflows int64`},
		{"overlap fine", "overlap", `x {"2020": {"n_total": 1}}` + "\n" + `x {"2020": {"n_total": 1}}` + "\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			switch tc.task {
			case "combine":
				err = NewCombiner(nil).AddSummary(strings.NewReader(tc.in), "in.sum")
			case "totals-noyear":
				err = WriteTotals(io.Discard, strings.NewReader(tc.in), "in.sum", &TotalsOptions{NoYear: true})
			case "overlap":
				_, err = Overlap([]string{"in.sum"}, []io.Reader{strings.NewReader(tc.in)}, nil)
			}
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("error %v, want none", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
			}
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Name != "in.sum" {
				t.Errorf("error %v is not a *ParseError naming in.sum", err)
			}
		})
	}
}

// Regression: a read error (a truncated .gz index) came back without the
// file name or position.
func TestReadErrorNamesInput(t *testing.T) {
	var text strings.Builder
	for i := 0; i < 3000; i++ {
		text.WriteString("com,example)/ 20200101000000 {\"url\": \"http://example.com/\", \"mime\": \"text/html\", \"status\": \"200\", \"length\": \"100\", \"filename\": \"IA-1.warc.gz\"}\n")
	}
	z := truncatedGzip(t, text.String())
	tests := []struct {
		name string
		read func(io.Reader) error
	}{
		{"summarizer", func(r io.Reader) error {
			return New(nil).ReadIndex(context.Background(), cdxj.NewStream("idx.cdxj.gz", r, nil), true)
		}},
		{"daily", func(r io.Reader) error {
			return NewDaily(nil).ReadIndex(context.Background(), cdxj.NewStream("idx.cdxj.gz", r, nil), true)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			zr, err := gzip.NewReader(bytes.NewReader(z))
			if err != nil {
				t.Fatal(err)
			}
			err = tc.read(zr)
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("error %v, want io.ErrUnexpectedEOF", err)
			}
			if !strings.Contains(err.Error(), "idx.cdxj.gz: after line ") {
				t.Errorf("error %q does not name the file and line", err)
			}
		})
	}
}

// jline is a CDXJ line for example.com with the given raw JSON status and
// length values (quotes included when wanted).
func jline(status, length string) string {
	return `com,example)/ 20200101000000 {"url": "http://example.com/", "mime": "text/html", "status": ` + status + `, "length": ` + length + "}\n"
}

// Regression: a quoted status with blanks ("200 ") was not counted, and
// captures counted without a usable length lost their bytes silently; a
// huge length could push the s_ sums past int64.
func TestStatusAndLengthValues(t *testing.T) {
	tests := []struct {
		name          string
		in            string
		counted, size int64
		noLength      int64
	}{
		{"quoted 200", jline(`"200"`, `"10"`), 1, 10, 0},
		{"status with trailing blank", jline(`"200 "`, `"10"`), 1, 10, 0},
		{"status with leading blank", jline(`" 204"`, `"10"`), 1, 10, 0},
		{"status with blank, escaped url (slow path)", `com,example)/ 20200101000000 {"url": "http:\/\/example.com/", "mime": "text/html", "status": "200 ", "length": "10"}` + "\n", 1, 10, 0},
		{"json number status", jline(`200`, `10`), 1, 10, 0},
		{"status 2xx", jline(`"2xx"`, `"10"`), 0, 0, 0},
		{"status dash", jline(`"-"`, `"10"`), 0, 0, 0},
		{"status 0", jline(`"0"`, `"10"`), 0, 0, 0},
		{"length dash", jline(`"200"`, `"-"`), 1, 0, 1},
		{"length negative", jline(`"200"`, `"-5"`), 1, 0, 1},
		{"length negative number", jline(`200`, `-7`), 1, 0, 1},
		{"length float", jline(`"200"`, `"1.5"`), 1, 0, 1},
		{"length 20 digits", jline(`"200"`, `"99999999999999999999"`), 1, 0, 1},
		{"length above MaxRecordLength", jline(`"200"`, `"999999999999999999"`), 1, 0, 1},
		{"length at MaxRecordLength", jline(`"200"`, `"1099511627776"`), 1, MaxRecordLength, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := New(&Options{MaxYear: 2030})
			if err := s.ReadIndex(context.Background(), cdxj.NewStream("t.cdxj", strings.NewReader(tc.in), nil), false); err != nil {
				t.Fatal(err)
			}
			st := s.Stats()
			var size int64
			for _, l := range s.Lines() {
				for _, p := range l.Periods {
					size += p.Counters[STotal]
				}
			}
			got := [3]int64{st.Counted, size, st.NoLength}
			want := [3]int64{tc.counted, tc.size, tc.noLength}
			if got != want {
				t.Errorf("counted, bytes, NoLength = %v, want %v", got, want)
			}
		})
	}
}

// Regression: Daily summed an invalid length as 0 without saying so, and
// did not take a status "200 " for 2xx.
func TestDailyNoLength(t *testing.T) {
	in := `com,a)/ 20090119000000 {"url": "http://a.com/", "mime": "text/html", "status": "200", "length": "-", "filename": "IA-1.warc.gz"}
com,b)/ 20090119000000 {"url": "http://b.com/", "mime": "text/html", "status": "200", "length": "5000000000000", "filename": "IA-1.warc.gz"}
com,c)/ 20090119000000 {"url": "http://c.com/", "mime": "text/html", "status": "200 ", "length": "7", "filename": "IA-1.warc.gz"}
`
	d := NewDaily(nil)
	if err := d.ReadIndex(context.Background(), cdxj.NewStream("d.cdxj", strings.NewReader(in), nil), false); err != nil {
		t.Fatal(err)
	}
	if got := d.Stats().NoLength; got != 2 {
		t.Errorf("NoLength = %d, want 2", got)
	}
	days := d.Days()
	if len(days) != 1 || days[0].Orgs["IA"] != (DayOrg{Count: 3, Size: 7, OKCount: 3, OKSize: 7}) {
		t.Errorf("days = %+v, want IA with 3 records of 7 bytes", days)
	}
}

// Regression: Daily counted a line whose JSON block is malformed (an ipwb
// TimeMap's "datetime"="...") as a capture of unknown size.
func TestDailyBadJSON(t *testing.T) {
	in := `com,a)/ 20090119000000 {"url": "http://a.com/", "mime": "text/html", "status": "200", "length": "7", "filename": "IA-1.warc.gz"}
20130202100000 {"uri": "http://localhost/memento/20130202100000/a.com/", "datetime"="Sat, 02 Feb 2013 10:00:00 GMT"}
`
	var pe *cdxj.ParseError
	err := NewDaily(nil).ReadIndex(context.Background(), cdxj.NewStream("d.cdxj", strings.NewReader(in), nil), false)
	if !errors.As(err, &pe) || pe.Line != 2 || !errors.Is(err, cdxj.ErrJSON) {
		t.Errorf("strict: err = %v, want a *cdxj.ParseError on line 2", err)
	}
	d := NewDaily(nil)
	if err := d.ReadIndex(context.Background(), cdxj.NewStream("d.cdxj", strings.NewReader(in), nil), true); err != nil {
		t.Fatal(err)
	}
	if st := d.Stats(); st.Records != 1 || st.BadLines != 1 {
		t.Errorf("stats = %+v, want 1 record and 1 bad line", st)
	}
	// The series records the skipped line in a note line, first, and
	// ReadDays reads the days past it.
	var out bytes.Buffer
	if _, err := d.WriteTo(&out); err != nil {
		t.Fatal(err)
	}
	note, rest, _ := strings.Cut(out.String(), "\n")
	var m struct {
		Skipped  int64    `json:"skipped_lines"`
		Examples []string `json:"skipped_examples"`
	}
	if js, ok := strings.CutPrefix(note, "!meta "); !ok || json.Unmarshal([]byte(js), &m) != nil ||
		m.Skipped != 1 || len(m.Examples) != 1 || !strings.Contains(m.Examples[0], "d.cdxj: line 2") {
		t.Errorf("first line %q, want a !meta note of 1 skipped line naming d.cdxj line 2", note)
	}
	if !strings.HasPrefix(rest, "20090119 {") {
		t.Errorf("after the note: %q, want the day 20090119", rest)
	}
	days, err := ReadDays(&out, "daily.txt")
	if err != nil || len(days) != 1 || days[0].Orgs["IA"].Count != 1 {
		t.Errorf("ReadDays = %+v, %v; want the one day with 1 IA record", days, err)
	}
}

// Regression: one domain got two keys by its IDN spelling or its IPv6
// text, and a SURT with an empty host gave the key ")".
func TestKeyNormalization(t *testing.T) {
	tests := []struct {
		name, indexKey, url string
		mode                KeyMode
		want                string
	}{
		{"unicode SURT", "de,müller)/", "http://müller.de/", KeyDomain, "xn--mller-kva.de"},
		{"unicode upper case", "de,MÜLLER,www)/", "", KeyDomain, "xn--mller-kva.de"},
		{"punycode SURT", "de,xn--mller-kva)/", "http://xn--mller-kva.de/", KeyDomain, "xn--mller-kva.de"},
		{"unicode host mode", "de,müller,shop)/", "", KeyHost, "shop.xn--mller-kva.de"},
		{"unicode TLD", "xn--fiqs8s,例子)/", "", KeyDomain, "xn--fsqu00a.xn--fiqs8s"},
		{"no SURT, unicode URL", "", "http://Müller.de:8080/a", KeyDomain, "xn--mller-kva.de"},
		{"IPv6 non-canonical", "[2001:DB8:0::1])/", "http://[2001:DB8:0::1]/", KeyDomain, "[2001:db8::1]"},
		{"IPv6 with port", "[2001:db8::1]:8080)/", "http://[2001:db8::1]:8080/", KeyHost, "[2001:db8::1]"},
		{"IPv4 SURT", "1,2,0,192)/", "http://192.0.2.1/", KeyDomain, "192.0.2.1"},
		{"empty SURT host", ")/", "http:///x", KeyDomain, NoHostKey},
		{"empty SURT host, no URL", ")/", "", KeyHost, NoHostKey},
		{"comma SURT host", ",)/", "http://./", KeyDomain, NoHostKey},
		{"trailing dot", "", "http://EXAMPLE.org./x", KeyDomain, "example.org"},
		{"public suffix itself", "uk,co)/", "http://co.uk/", KeyDomain, "co.uk"},
		{"single label", "localhost)/", "http://localhost/", KeyDomain, "localhost"},
		{"space and brace in URL host", "-", "http://ex {ample.com/", KeyHost, "ex%20{ample.com"},
		{"tab in URL host", "-", "http://tab\there.com/", KeyHost, "tab%09here.com"},
		{"space in URL host, domain", "-", "http://www.ex ample.com/", KeyDomain, "ex%20ample.com"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := HostKey(tc.indexKey, tc.url, tc.mode); got != tc.want {
				t.Errorf("Key(%q, %q, %v) = %q, want %q", tc.indexKey, tc.url, tc.mode, got, tc.want)
			}
		})
	}
}

// Regression: re-keying by domain kept the original's empty key and split
// one domain over its IDN spellings.
func TestRekeyDomainNormalizes(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", NoHostKey},
		{"-", NoHostKey},
		{"dns:", "dns:"},
		{"www.Müller.de", "xn--mller-kva.de"},
		{"shop.xn--mller-kva.de", "xn--mller-kva.de"},
		{"[2001:DB8::1]", "[2001:db8::1]"},
		{"news.bbc.co.uk", "bbc.co.uk"},
	}
	for _, tc := range tests {
		if got := RekeyKey(tc.in, RekeyDomain); got != tc.want {
			t.Errorf("RekeyKey(%q, RekeyDomain) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Regression: a mapping file giving one prefix two organizations silently
// used the first.
func TestOrgMappingDuplicates(t *testing.T) {
	tests := []struct {
		name, in string
		wantErr  string
		file     string
		wantOrg  string
	}{
		{"conflict", "LOC A\n# c\nLOC B\n", `map.txt:3: prefix "LOC" maps to "B" here and to "A" on line 1`, "", ""},
		{"same pair twice", "LOC A\nLOC A\n", "", "LOC-1.arc.gz", "A"},
		{"longest prefix wins", "LOC A\nLOC-X B\n", "", "LOC-X-1.arc.gz", "B"},
		{"three fields", "LOC A B\n", `map.txt:1: want "PREFIX ORGANIZATION", got 3 fields`, "", ""},
		{"no dash falls back", "LOC A\n", "", "crawl.warc.gz", "crawl"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			org, err := ReadOrgMapping(strings.NewReader(tc.in), "map.txt")
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := org(tc.file); got != tc.wantOrg {
				t.Errorf("org(%q) = %q, want %q", tc.file, got, tc.wantOrg)
			}
		})
	}
}

// Regression: a URL host with a blank gave a key that broke its summary
// line ("ex {ample.com {...}" did not parse back).
func TestBlankHostRoundTrip(t *testing.T) {
	in := `- 20200101000000 {"url": "http://ex {ample.com/", "mime": "text/html", "status": "200", "length": "1"}
- 20200101000000 {"url": "http://tab\there.com/", "mime": "text/html", "status": "200", "length": "1"}
`
	for _, mode := range []KeyMode{KeyDomain, KeyHost} {
		s := New(&Options{Keys: mode, MaxYear: 2030})
		if err := s.ReadIndex(context.Background(), cdxj.NewStream("sp.cdxj", strings.NewReader(in), nil), false); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if _, err := s.WriteTo(&out); err != nil {
			t.Fatal(err)
		}
		lines, err := ReadSummary(&out, "sp.sum")
		if err != nil {
			t.Fatalf("%v: summary does not parse back: %v", mode, err)
		}
		var keys []string
		for _, l := range lines {
			keys = append(keys, l.Key)
		}
		want := []string{"ex%20{ample.com", "tab%09here.com"}
		if strings.Join(keys, "|") != strings.Join(want, "|") {
			t.Errorf("%v: keys %q, want %q", mode, keys, want)
		}
	}
}

// Regression: an organization called "toturis" (a WARC file
// "toturis-1.warc.gz") repeated the totals' member name in the day's JSON.
func TestDayLineOrgNamedLikeTotals(t *testing.T) {
	day := Day{Day: "20090119", Orgs: map[string]DayOrg{"toturis": {Count: 1}, "toturis_": {Count: 2}, "IA": {Count: 3}}}
	line := AppendDayLine(nil, day)
	i := bytes.IndexByte(line, ' ')
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line[i+1:], &m); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(line[i+1:]))
	seen := map[string]bool{}
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		k := tok.(string)
		if seen[k] {
			t.Errorf("member %q repeated in %s", k, line)
		}
		seen[k] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range []string{"IA", "toturis_", "toturis__", "toturis"} {
		if !seen[k] {
			t.Errorf("member %q missing from %s", k, line)
		}
	}
	if string(m["toturis"]) != "6" {
		t.Errorf("toturis = %s, want 6", m["toturis"])
	}
}

// Regression: a comma-joined Content-Type ("text/html, text/html") was
// counted as other; the odd values real indexes hold are categorized here.
func TestCategorizeOddMIME(t *testing.T) {
	tests := []struct {
		mime string
		want Category
	}{
		{"text/html;charset=UTF-8", HTML},
		{"TEXT/HTML ", HTML},
		{" text/html", HTML},
		{"text/html, text/html", HTML},
		{"image/png,image/png", Image},
		{"application/octet-stream", Other},
		{"-", Other},
		{"", Other},
		{"unk", Other},
		{",text/html", Other},
		{"application/x-font-woff", Font},
		{"warc/revisit", Other},
	}
	for _, tc := range tests {
		if got := CategorizeMIME(tc.mime); got != tc.want {
			t.Errorf("CategorizeMIME(%q) = %v, want %v", tc.mime, got, tc.want)
		}
	}
}

// longLineInput is a CDXJ file whose middle line is n bytes long.
func longLineInput(n int) string {
	var b strings.Builder
	b.WriteString("com,a)/ 20200101000000 {\"url\": \"http://a.com/\", \"mime\": \"text/html\", \"status\": \"200\", \"length\": \"1\"}\r\n")
	b.WriteString("com,big)/ 20200101000000 {\"url\": \"http://big.com/")
	b.WriteString(strings.Repeat("x", n))
	b.WriteString("\", \"mime\": \"text/html\", \"status\": \"200\", \"length\": \"1\"}\r")
	b.WriteString("com,c)/ 20200101000000 {\"url\": \"http://c.com/\", \"mime\": \"text/html\", \"status\": \"200\", \"length\": \"1\"}")
	return b.String()
}

// Regression: the compatibility reader rescanned a long line from its start
// after every 8 KiB chunk (a 100 MB line took minutes); see
// BenchmarkCompatLongLine for the speed. This checks the lines stay right.
func TestCompatLongLine(t *testing.T) {
	in := longLineInput(3*pyChunk + 5)
	p := newPyLineReader(strings.NewReader(in))
	var lens []int
	for {
		l, err := p.readLine()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if strings.Count(l, "\n") != 1 && !strings.HasPrefix(l, "com,c)") {
			t.Errorf("line %q... does not end in one newline", l[:20])
		}
		lens = append(lens, len(l))
	}
	first := strings.Index(in, "\r\n") + 1
	second := strings.Index(in[first+1:], "\r") + 1
	want := []int{first, second, len(in) - first - 1 - second}
	if len(lens) != 3 || lens[0] != want[0] || lens[1] != want[1] || lens[2] != want[2] {
		t.Errorf("line lengths %v, want %v", lens, want)
	}
	c := NewCompat(false, false, nil)
	if err := c.ReadFile("long.cdxj", strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := c.WriteCompactTo(&out); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(out.String(), "\n"); got != 3 {
		t.Errorf("compat summary has %d lines, want 3:\n%s", got, out.String())
	}
}

// BenchmarkCompatLongLine reads a file with one 16 MiB line through the
// compatibility reader; it must be linear in the line length (it took
// minutes for 100 MB before the fix).
func BenchmarkCompatLongLine(b *testing.B) {
	in := longLineInput(16 << 20)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		p := newPyLineReader(strings.NewReader(in))
		for {
			if _, err := p.readLine(); err != nil {
				break
			}
		}
	}
}

// Regression: overlap's CSV tables did not double the quotes of a summary
// name, so a name with '"' broke the table.
func TestOverlapCSVQuotesNames(t *testing.T) {
	names := []string{`a "x",1.sum`, "b.sum"}
	in := `k {"2020": {"n_total": 1, "s_total": 2}}` + "\n"
	res, err := Overlap(names, []io.Reader{strings.NewReader(in), strings.NewReader(in)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := res.WriteCSV(&out); err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	for _, part := range strings.Split(out.String(), "\n") {
		if part == "" || strings.HasSuffix(part, ":") {
			continue
		}
		r := csv.NewReader(strings.NewReader(part))
		row, err := r.Read()
		if err != nil {
			t.Fatalf("row %q does not parse: %v", part, err)
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 || rows[0][1] != `a "x",1.sum AND b.sum` {
		t.Errorf("first header row %q, want the combination of both names", rows)
	}
}

// Regression: a UTF-8 byte order mark (a summary or mapping file saved by a
// Windows editor) became part of the first key or prefix.
func TestByteOrderMark(t *testing.T) {
	lines, err := ReadSummary(strings.NewReader("\ufeffexample.com {\"2020\": {\"n_total\": 1}}\r\n"), "bom.sum")
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 1 || lines[0].Key != "example.com" {
		t.Errorf("lines %+v, want the key example.com", lines)
	}
	org, err := ReadOrgMapping(strings.NewReader("\ufeffLOC A\n"), "map.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got := org("LOC-1.arc.gz"); got != "A" {
		t.Errorf("org = %q, want A", got)
	}
}
