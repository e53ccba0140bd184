package ukvs

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/internal/sampledata"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		lines int64
		line  int64 // line of the error, 0 for none
		cause error
	}{
		{"figure 2", figure2, 6, 0, nil},
		{"empty", "", 0, 0, nil},
		{"out of order", "a 1\nc 1\nb 2\n", 3, 3, ErrOutOfOrder},
		{"duplicate", "!fields {keys: [\"s\"], values: [\"frequency\"]}\na 1\na 2\n", 2, 3, ErrDuplicateKey},
		{"line order counts blank lines", "a 1\n\nb 2\n\na 3\n", 3, 5, ErrOutOfOrder},
		{"bad frequency", "a 1\nb 1x\n", 2, 2, ErrFrequency},
		{"bad field count", "a 1\nb\n", 1, 2, ErrFieldCount},
		{"bad header", "!fields {keys: 1}\na 1\n", 0, 1, ErrHeader},
		{"late header", "a 1\n!meta {}\n", 1, 2, ErrLateHeader},
		{"bad block", "a 1 {x: }\n", 1, 1, ErrJSON},
		{"bad datetime key", "!fields {keys: [\"surt\", \"datetime\"], values: [\"frequency\"]}\na 2014 1\na 201613 1\n", 2, 3, ErrDatetimeValue},
		{"datetime placeholder", "!fields {keys: [\"surt\"], values: [\"frequency\", \"datetime\"]}\na 1 -\nb 1 2010:2012\n", 2, 0, nil},
		{"two key columns ordered by second", "!fields {keys: [\"surt\", \"datetime\"], values: [\"frequency\"]}\na 2015 1\na 2014 1\n", 2, 3, ErrOutOfOrder},
		{"prefix sorts first", "com,example)/ 1\ncom,example)/* 2\ncom,example)/a 3\n", 3, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, r := range []io.Reader{strings.NewReader(tt.in), iotest.OneByteReader(strings.NewReader(tt.in)), iotest.DataErrReader(strings.NewReader(tt.in))} {
				n, err := Check(r)
				if n != tt.lines {
					t.Errorf("Check counted %d data lines, want %d", n, tt.lines)
				}
				if tt.cause == nil {
					if err != nil {
						t.Errorf("Check = %v, want nil", err)
					}
					continue
				}
				var pe *ParseError
				if !errors.As(err, &pe) || pe.Line != tt.line || !errors.Is(err, tt.cause) {
					t.Errorf("Check = %v, want a ParseError at line %d wrapping %v", err, tt.line, tt.cause)
				}
			}
		})
	}
}

// publicCase returns the input and expected columns of one row of
// cases/public_cases.tsv, with the literal "\n" of the file turned into
// line breaks.
func publicCase(t *testing.T, id string) (input, expected string) {
	t.Helper()
	b, err := sampledata.ReadFile("cases/public_cases.tsv")
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range strings.Split(string(b), "\n") {
		cols := strings.Split(row, "\t")
		if len(cols) >= 4 && cols[0] == id {
			return strings.ReplaceAll(cols[2], `\n`, "\n"), cols[3]
		}
	}
	t.Fatalf("case %s not found", id)
	return "", ""
}

// UKVS-01a: keys are written in byte order (the CDXJ/UKVS rule, LC_ALL=C).
func TestPublicCaseUKVS01a(t *testing.T) {
	input, expected := publicCase(t, "UKVS-01a")
	keys := strings.Split(strings.TrimPrefix(input, "keys: "), " | ")
	want := strings.Split(strings.TrimPrefix(expected, "written in byte order: "), " ; ")
	if len(keys) != 6 || len(want) != 6 {
		t.Fatalf("unexpected case shape: %q / %q", input, expected)
	}
	sorted := append([]string(nil), keys...)
	sort.Strings(sorted)
	if diff := cmp.Diff(want, sorted); diff != "" {
		t.Errorf("byte order (-want +got):\n%s", diff)
	}
	// The writer takes them in that order and refuses the given order.
	var out bytes.Buffer
	w := NewWriter(&out)
	for _, k := range want {
		if err := w.WriteFrequency([]byte(k), Frequency{URIM: Exactly(1)}); err != nil {
			t.Fatalf("writing %q in byte order: %v", k, err)
		}
	}
	w.Flush()
	if _, err := Check(&out); err != nil {
		t.Errorf("Check of the sorted map: %v", err)
	}
	w = NewWriter(io.Discard)
	refused := 0
	for _, k := range keys {
		if err := w.WriteFrequency([]byte(k), Frequency{URIM: Exactly(1)}); errors.Is(err, ErrOutOfOrder) {
			refused++
		}
	}
	if refused == 0 {
		t.Error("the writer accepted the unsorted keys")
	}
}

// UKVS-01b: validation reports the out-of-order key at its line.
func TestPublicCaseUKVS01b(t *testing.T) {
	input, expected := publicCase(t, "UKVS-01b")
	m := regexp.MustCompile(`out-of-order key at line (\d+)`).FindStringSubmatch(expected)
	if m == nil {
		t.Fatalf("unexpected case shape: %q", expected)
	}
	wantLine, _ := strconv.ParseInt(m[1], 10, 64)
	_, err := Check(strings.NewReader(input))
	var pe *ParseError
	if !errors.As(err, &pe) || !errors.Is(err, ErrOutOfOrder) || pe.Line != wantLine {
		t.Fatalf("Check = %v, want ErrOutOfOrder at line %d", err, wantLine)
	}
	if pe.Key != "com,example)/b" {
		t.Errorf("reported key %q, want com,example)/b", pe.Key)
	}
}

// TestCheckLineAgreesWithCheck checks single lines with CheckLine and as
// the one data line of a document with Check: the same lines are bad, with
// the same cause and column.
func TestCheckLineAgreesWithCheck(t *testing.T) {
	dt := Fields{Keys: []string{"surt", "datetime"}, Values: []string{"frequency"}}
	tests := []struct {
		f    Fields
		line string
		bad  bool
	}{
		{DefaultFields(), "com,a)/ 3/1", false},
		{DefaultFields(), "com,a)/ 3/1 {\"n\": 1}", false},
		{DefaultFields(), "com,a)/", true},
		{DefaultFields(), "com,a)/ 3/1 extra", true},
		{DefaultFields(), "com,a)/ 3\x001", true},
		{DefaultFields(), "com,a)/ 3/1 {n: }", true},
		{dt, "com,a)/ 2010 3/1", false},
		{dt, "com,a)/ - 3/1", false},
		{dt, "com,a)/ 201x 3/1", true},
		{dt, "com,a)/ 3/1", true},
		{dt, "com,a)/ 2010 3/1 x", true},
	}
	for _, tt := range tests {
		var rec Record
		col, err := CheckLine([]byte(tt.line), tt.f, &rec)
		hdr, _ := json.Marshal(tt.f)
		_, cerr := Check(strings.NewReader("!fields " + string(hdr) + "\n" + tt.line + "\n"))
		if (err != nil) != tt.bad || (cerr != nil) != tt.bad {
			t.Errorf("%q: CheckLine %v, Check %v; want bad %v", tt.line, err, cerr, tt.bad)
			continue
		}
		if err == nil {
			continue
		}
		want := (&ParseError{Line: 2, Column: col, Err: err}).Error()
		if cerr.Error() != want {
			t.Errorf("%q: Check says %q, CheckLine %q", tt.line, cerr, want)
		}
	}
}
