package mementomap

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mementokit/mementokit/ukvs"
)

func compactString(t *testing.T, in string, o *CompactOptions) (string, CompactStats) {
	t.Helper()
	var out bytes.Buffer
	st, err := Compact(&out, strings.NewReader(in), o)
	if err != nil {
		t.Fatalf("Compact: %v", err)
	}
	return out.String(), st
}

func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

func seq(format string, n int, args ...any) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf(format, append([]any{i}, args...)...))
	}
	return out
}

func opts(h, p float64, ref bool) *CompactOptions {
	o := DefaultCompactOptions()
	o.HostFactor, o.PathFactor, o.Reference = h, p, ref
	return o
}

// sample01 is samples/sample-01.ukvs of oduwsdl/MementoMap (commit
// e252deb), the reference tool's own sample map.
const sample01 = `com,cnn)/ 200
com,cnn)/images 100
com,cnn)/news/a/b/c 5
com,cnn)/news/a/b/d 2
com,cnn)/news/a/b/e 4
com,cnn)/news/a/f/e 3
com,news)/ 150
com,news)/foo 20
edu,odu)/ 500
edu,odu)/compsci 250
edu,odu,cs)/ 100
edu,odu,cs)/~mln/ 40
edu,odu,cs)/~mln/pubs 20
edu,psu)/ 10
`

func TestCompactGolden(t *testing.T) {
	thirty := seq("com,ex)/p%02d 1", 30)
	tests := []struct {
		name string
		in   string
		o    *CompactOptions
		want string
	}{
		{
			// Output of the reference tool (0.1.0b2 cli.py compact, run
			// locally with hcf=pcf=0.2) on its own sample.
			name: "reference sample-01 at 0.2",
			in:   sample01,
			o:    opts(0.2, 0.2, true),
			want: lines("com,cnn) 200", "com,cnn)/images 100", "com,cnn)/news/a/* 14",
				"com,news) 150", "com,news)/foo 20", "edu,odu) 500", "edu,odu)/compsci 250",
				"edu,odu,cs) 100", "edu,odu,cs)/~mln 40", "edu,odu,cs)/~mln/pubs 20", "edu,psu) 10"),
		},
		{
			name: "sample-01 at 0.2 keeps our root form and writes M/R",
			in:   sample01,
			o:    opts(0.2, 0.2, false),
			want: lines("com,cnn)/ 200", "com,cnn)/images 100", "com,cnn)/news/a/* 14/4+",
				"com,news)/ 150", "com,news)/foo 20", "edu,odu)/ 500", "edu,odu)/compsci 250",
				// "/~mln/" is a child of "/~mln" in our form (the
				// reference strips the slash), so "/~mln" has two children.
				"edu,odu,cs)/ 100", "edu,odu,cs)/~mln/* 60/2+", "edu,psu)/ 10"),
		},
		{
			name: "factor infinity copies the map",
			in:   sample01,
			o:    opts(math.Inf(1), math.Inf(1), false),
			want: sample01,
		},
		{
			name: "factor zero rolls up every node with a child",
			in:   sample01,
			o:    opts(0, 0, false),
			want: lines("com,cnn)/* 314/6+", "com,news)/* 170/2+", "edu,odu,* 910/5+", "edu,psu)/ 10"),
		},
		{
			// Reference bug: the subdomain's node recorded its output
			// offset before the path roll-up moved it back; the reference
			// then wrote "com,ex,www,* 9" at a stale offset and left the
			// old path lines behind it (run locally: 32 lines, disordered).
			name: "subdomain after a host whose paths rolled up",
			in:   lines(append(append(thirty, seq("com,ex,www,s%d) 1", 9)...), "org,z) 1")...),
			o:    opts(1, 1, true),
			want: lines("com,ex)/* 30", "com,ex,www,* 9", "org,z) 1"),
		},
		{
			name: "subdomain after rolled-up paths, our form",
			in:   lines(append(append(seq("com,ex)/p%02d 1/1", 30), seq("com,ex,www,s%d)/ 2/1", 9)...), "org,z)/ 1/1")...),
			o:    opts(1, 1, false),
			want: lines("com,ex)/* 30/30", "com,ex,www,* 18/9", "org,z)/ 1/1"),
		},
		{
			// The reference drops keys without a comma (localhost, IPv6).
			name: "keys without a comma are kept",
			in:   lines(append([]string{"[2001:db8::1])/ 1", "localhost)/ 3"}, seq("localhost)/p%02d 1", 26)...)...),
			o:    opts(1, 1, false),
			want: lines("[2001:db8::1])/ 1", "localhost)/* 29/27+"),
		},
		{
			// The reference rolls a public suffix up: uk,co,* would claim
			// every British company.
			name: "public suffix is never rolled up",
			in:   lines(seq("uk,co,firm%02d)/ 1", 12)...),
			o:    opts(1, 1, false),
			want: lines(seq("uk,co,firm%02d)/ 1", 12)...),
		},
		{
			name: "public suffix rolled up in reference mode",
			in:   lines(seq("uk,co,firm%02d)/ 1", 12)...),
			o:    opts(1, 1, true),
			want: lines("uk,co,* 12"),
		},
		{
			name: "wildcard rule of the list guards the node above it",
			in:   lines(seq("jp,kawasaki,c%02d)/ 1", 12)...),
			o:    opts(1, 1, false),
			want: lines(seq("jp,kawasaki,c%02d)/ 1", 12)...),
		},
		{
			name: "below a public suffix rolls up",
			in:   lines(seq("uk,co,firm,s%02d)/ 1", 12)...),
			o:    opts(1, 1, false),
			want: lines("uk,co,firm,* 12/12+"),
		},
		{
			// The reference drops frequencies other than plain integers.
			name: "UKVS frequencies are summed with their bounds",
			in:   lines("com,ex)/a 5/2", "com,ex)/a/b 10+/3", "com,ex)/a/c 7~/1", "com,ex)/b 4"),
			o:    opts(0, 0, false),
			want: lines("com,ex)/* 26~/7+"),
		},
		{
			// The reference drops header lines.
			name: "headers are copied",
			in:   lines(`!context ["https://oduwsdl.github.io/contexts/ukvs"]`, `!fields {"keys": ["surt"], "values": ["frequency"]}`, "com,ex)/a 1", "com,ex)/b 1"),
			o:    opts(0, 0, false),
			want: lines(`!context ["https://oduwsdl.github.io/contexts/ukvs"]`, `!fields {"keys": ["surt"], "values": ["frequency"]}`, "com,ex)/* 2/2+"),
		},
		{
			name: "subtree that holds nothing is dropped, not rolled up",
			in:   lines("com,* 9", "com,ex)/a 0", "com,ex)/b 0", "com,ex)/c 0", "org,x)/ 1"),
			o:    opts(0, 0, false),
			want: lines("com,* 9", "org,x)/ 1"),
		},
		{
			name: "blank lines are skipped, CRLF ends kept out",
			in:   "com,ex)/a 1\r\n\n   \ncom,ex)/b 2\r\n",
			o:    opts(math.Inf(1), math.Inf(1), false),
			want: lines("com,ex)/a 1", "com,ex)/b 2"),
		},
		{
			name: "shallowest exceeding node wins",
			in: lines(append(append([]string{}, seq("com,ex)/a/%02d 1", 12)...),
				seq("com,ex)/b%02d 1", 25)...)...),
			o:    opts(math.Inf(1), 1, false),
			want: lines("com,ex)/* 37/37+"),
		},
		{
			name: "deeper roll-up then a sibling stays",
			in:   lines(append(seq("com,ex)/a/%02d 1", 12), "com,ex)/b 1")...),
			o:    opts(math.Inf(1), 1, false),
			want: lines("com,ex)/a/* 12/12+", "com,ex)/b 1"),
		},
		{
			// "/news" comes back after "/news-2019" and "/news.html" ('-'
			// and '.' sort before '/'): it is one child, not two. Three
			// children do not pass the cutoff 24.546·0.13 = 3.19.
			name: "a node split by byte order counts once",
			in:   lines("com,ex)/news 1", "com,ex)/news-2019 1", "com,ex)/news.html 1", "com,ex)/news/a 1"),
			o:    opts(math.Inf(1), 0.13, false),
			want: lines("com,ex)/news 1", "com,ex)/news-2019 1", "com,ex)/news.html 1", "com,ex)/news/a 1"),
		},
		{
			// The reference counts "/news" twice: four children roll up.
			name: "a node split by byte order counts twice in reference mode",
			in:   lines("com,ex)/news 1", "com,ex)/news-2019 1", "com,ex)/news.html 1", "com,ex)/news/a 1"),
			o:    opts(math.Inf(1), 0.13, true),
			want: lines("com,ex)/* 4"),
		},
		{
			name: "empty input",
			in:   "",
			o:    opts(1, 1, false),
			want: "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := compactString(t, tt.in, tt.o)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Compact (-want +got):\n%s", d)
			}
		})
	}
}

func TestCompactErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		o    *CompactOptions
		want error
		line int64
	}{
		{"out of order", lines("com,b)/ 1", "com,a)/ 1"), opts(1, 1, false), ErrOutOfOrder, 2},
		{"duplicate", lines("com,a)/ 1", "com,a)/ 1"), opts(1, 1, false), ErrDuplicateKey, 2},
		{"late header", lines("com,a)/ 1", "!meta {}"), opts(1, 1, false), ErrLateHeader, 2},
		{"lone CR line ends", "com,a)/ 1\rcom,b)/ 1\r\n", opts(1, 1, false), ErrLoneCR, 1},
		{"CR inside a key after a blank line", "\n\r0\n", opts(1, 1, false), ErrLoneCR, 2},
		{"bad frequency", lines("com,a)/ 1", "com,b)/ x1"), opts(1, 1, false), ErrBadFrequency, 2},
		// The reference re-orders keys when it cuts queries and strips
		// slashes; we stop instead of writing an unsorted map.
		{"reference normalization re-orders", lines("com,a)/x/y 1", "com,a)/x?q=1 1"), opts(1, 1, true), ErrOutOfOrder, 2},
		{"long line", "com,a)/" + strings.Repeat("x", 200) + " 1\n", func() *CompactOptions { o := opts(1, 1, false); o.MaxLineLength = 100; return o }(), ErrLineTooLong, 1},
		{"negative factor", "", opts(-1, 1, false), ErrBadOptions, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compact(&bytes.Buffer{}, strings.NewReader(tt.in), tt.o)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			var le *LineError
			if tt.line > 0 && (!errors.As(err, &le) || le.Line != tt.line) {
				t.Errorf("err = %v, want line %d", err, tt.line)
			}
		})
	}
}

func TestCutoffs(t *testing.T) {
	h, p := DefaultCompactOptions().Cutoffs()
	round := func(xs []float64) []float64 {
		out := make([]float64, len(xs))
		for i, x := range xs {
			out[i] = math.Round(x*100) / 100
		}
		return out
	}
	// internal/spec/MEMENTOMAP.md, "Compaction".
	if d := cmp.Diff([]float64{9.95, 7.45, 6.07, 5.17, 4.54, 4.07, 3.70}, round(h[1:])); d != "" {
		t.Errorf("host cutoffs (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]float64{24.55, 9.12, 5.11, 3.39, 2.46, 1.90, 1.52, 1.26, 1.06}, round(p)); d != "" {
		t.Errorf("path cutoffs (-want +got):\n%s", d)
	}
}

func TestCompactSpill(t *testing.T) {
	long := strings.Repeat("x", 400)
	var noRollup, rollupIntoSpill []string
	for i := range 20 {
		for j := range 200 {
			noRollup = append(noRollup, fmt.Sprintf("com,ex)/a%02d/b/%03d%s 1", i, j, long))
		}
	}
	rollupIntoSpill = append(rollupIntoSpill, "com,aaa)/ 1")
	for i := range 300 {
		rollupIntoSpill = append(rollupIntoSpill, fmt.Sprintf("com,ex)/p%03d/%s 1", i, long))
	}
	rollupIntoSpill = append(rollupIntoSpill, "org,z)/ 2")
	tests := []struct {
		name string
		in   []string
		o    *CompactOptions
	}{
		// Everything stays pending (the host could still roll up) and
		// goes through the spill file.
		{"big pending region", noRollup, opts(math.Inf(1), 100, false)},
		// The host's roll-up cuts back into the spill file.
		{"roll-up truncates the spill", rollupIntoSpill, opts(math.Inf(1), 10, false)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, _ := compactString(t, lines(tt.in...), tt.o)
			o := tt.o
			o.MemoryLimit = 512
			o.TempDir = t.TempDir()
			got, st := compactString(t, lines(tt.in...), o)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("spilled output differs (-mem +spill):\n%s", d)
			}
			if st.MaxPending <= 64<<10 {
				t.Errorf("MaxPending = %d, want the spill path exercised", st.MaxPending)
			}
		})
	}
	got, _ := compactString(t, lines(rollupIntoSpill...), opts(math.Inf(1), 10, false))
	if d := cmp.Diff(lines("com,aaa)/ 1", "com,ex)/* 300/300+", "org,z)/ 2"), got); d != "" {
		t.Errorf("roll-up (-want +got):\n%s", d)
	}
}

func TestParseSimpleFrequencyMatchesUKVS(t *testing.T) {
	for _, v := range []string{"0", "1", "5/2", "54321/20000", "10/0", "0/0", "123456789012345678/1",
		"05", "5/02", "5/", "/5", "5+", "5/2~", "1234567890123456789", "", "-", "x"} {
		var got ukvs.Frequency
		ok := parseSimpleFrequency([]byte(v), &got)
		want, err := ukvs.ParseFrequency(v)
		if ok && (err != nil || got != want) {
			t.Errorf("%q: fast parse %+v, ukvs %+v (%v)", v, got, want, err)
		}
	}
}

// TestReferenceCases compares Reference mode with outputs of the reference
// tool itself (testdata/reference/README.md).
func TestReferenceCases(t *testing.T) {
	ins, err := filepath.Glob("testdata/reference/*.in")
	if err != nil || len(ins) < 10 {
		t.Fatalf("reference cases: %v (%d)", err, len(ins))
	}
	for _, in := range ins {
		base := strings.TrimSuffix(in, ".in")
		t.Run(filepath.Base(base), func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(base + ".out")
			if err != nil {
				t.Fatal(err)
			}
			w, err := os.ReadFile(base + ".weights")
			if err != nil {
				t.Fatal(err)
			}
			var hcf, pcf float64
			if _, err := fmt.Sscan(string(w), &hcf, &pcf); err != nil {
				t.Fatal(err)
			}
			got, _ := compactString(t, string(src), opts(hcf, pcf, true))
			if d := cmp.Diff(string(want), got); d != "" {
				t.Errorf("W=(%v,%v) (-reference +ours):\n%s", hcf, pcf, d)
			}
		})
	}
}

// TestCompactSkipsBOM: a byte order mark before the first line is not
// part of its key (it made the second key look out of order).
func TestCompactSkipsBOM(t *testing.T) {
	var out bytes.Buffer
	in := "\xef\xbb\xbf" + lines("!meta {}", "com,a)/ 1", "com,a)/b 2")
	if _, err := Compact(&out, strings.NewReader(in), opts(math.Inf(1), math.Inf(1), false)); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(lines("!meta {}", "com,a)/ 1", "com,a)/b 2"), out.String()); d != "" {
		t.Errorf("Compact (-want +got):\n%s", d)
	}
}

// TestCompactOptionsCheck: Check refuses what Compact refuses, with
// zero values read as their defaults.
func TestCompactOptionsCheck(t *testing.T) {
	if err := (CompactOptions{}).Check(); err != nil {
		t.Errorf("zero CompactOptions: %v; want nil (defaults)", err)
	}
	if err := DefaultCompactOptions().Check(); err != nil {
		t.Errorf("DefaultCompactOptions: %v", err)
	}
	for _, o := range []CompactOptions{{HostFactor: -1}, {PathFactor: math.NaN()}, {HostDepth: MaxDepth + 1}, {PathAlpha: -1}} {
		err := o.Check()
		if !errors.Is(err, ErrBadOptions) {
			t.Errorf("%+v: Check = %v; want ErrBadOptions", o, err)
		}
		var b bytes.Buffer
		if _, cerr := Compact(&b, strings.NewReader("com,example)/ 1\n"), &o); !errors.Is(cerr, ErrBadOptions) {
			t.Errorf("%+v: Compact = %v; want ErrBadOptions as Check", o, cerr)
		}
	}
}
