package mementomap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/sampledata"
	"github.com/mementokit/mementokit/ukvs"
)

// realMaps returns the baseline maps of the shipped real indexes, split
// into their header lines and their data lines.
func realMaps(t *testing.T) map[string][2][]string {
	t.Helper()
	out := map[string][2][]string{}
	for _, name := range sampledata.IndexFiles() {
		data, err := sampledata.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		o := BuildOptions{SkipBad: true, Now: fixedNow}
		var base bytes.Buffer
		if _, err := Build(context.Background(), &base, []cdxj.Searcher{cdxj.NewStream(name, bytes.NewReader(data), nil)}, &o); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		compacted, _ := compactString(t, base.String(), opts(1, 1, false))
		for what, m := range map[string]string{"": base.String(), " compacted": compacted} {
			var hs, ds []string
			for _, l := range strings.Split(strings.TrimSuffix(m, "\n"), "\n") {
				if strings.HasPrefix(l, "!") {
					hs = append(hs, l)
				} else {
					ds = append(ds, l)
				}
			}
			if len(ds) >= 3 {
				out[filepath.Base(name)+what] = [2][]string{hs, ds}
			}
		}
	}
	if len(out) < 4 {
		t.Fatalf("only %d real maps", len(out))
	}
	return out
}

var lineNamed = regexp.MustCompile(`\.ukvs: line \d+: key out of byte-wise order`)

// lookupsNeverAbsent looks every key of lines up in the map of headers and
// lines (written to a file) and fails the test for a lookup that answers
// absent without an error; it returns how many lookups returned an error
// wrapping ukvs.ErrOutOfOrder (naming the file and a line) and how many
// answered.
func lookupsNeverAbsent(t *testing.T, what string, hs, lines []string) (errs, answered int) {
	t.Helper()
	m := openMap(t, strings.Join(append(append([]string{}, hs...), lines...), "\n")+"\n")
	for _, l := range lines {
		k := keyOf([]byte(l))
		res, err := m.LookupSURT(string(k))
		switch {
		case err != nil:
			if !errors.Is(err, ukvs.ErrOutOfOrder) || !lineNamed.MatchString(err.Error()) {
				t.Fatalf("%s: lookup of %q: %v; want ukvs.ErrOutOfOrder naming the file and the line", what, k, err)
			}
			errs++
		case res.Distance < 0:
			t.Fatalf("%s: the map holds %q, and the lookup answered absent without an error\n%s", what, k, strings.Join(lines, "\n"))
		default:
			answered++
		}
	}
	return errs, answered
}

// TestNoFalseNegativesUnsortedMaps swaps and shuffles the lines of the
// maps of real indexes: no lookup of a key the map holds answers absent
// without an error, and once the order check has run every lookup fails
// with ukvs.ErrOutOfOrder.
func TestNoFalseNegativesUnsortedMaps(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 1))
	for name, hd := range realMaps(t) {
		hs, ds := hd[0], hd[1]
		// The sorted map answers every key.
		if errs, _ := lookupsNeverAbsent(t, name+" sorted", hs, ds); errs != 0 {
			t.Fatalf("%s: %d errors in the sorted map", name, errs)
		}
		for trial := range 20 {
			ls := append([]string(nil), ds...)
			switch trial % 4 {
			case 0: // two lines far apart
				i, j := r.IntN(len(ls)), r.IntN(len(ls))
				for keyOf([]byte(ls[i])) == nil || bytes.Equal(keyOf([]byte(ls[i])), keyOf([]byte(ls[j]))) {
					i, j = r.IntN(len(ls)), r.IntN(len(ls))
				}
				ls[i], ls[j] = ls[j], ls[i]
			case 1: // the whole map
				r.Shuffle(len(ls), func(i, j int) { ls[i], ls[j] = ls[j], ls[i] })
			case 2: // one line moved to the front
				i := 1 + r.IntN(len(ls)-1)
				l := ls[i]
				copy(ls[1:i+1], ls[:i])
				ls[0] = l
			case 3: // the map reversed
				for i, j := 0, len(ls)-1; i < j; i, j = i+1, j-1 {
					ls[i], ls[j] = ls[j], ls[i]
				}
			}
			sorted := true
			for i := 1; i < len(ls); i++ {
				if bytes.Compare(keyOf([]byte(ls[i])), keyOf([]byte(ls[i-1]))) < 0 {
					sorted = false
				}
			}
			what := fmt.Sprintf("%s trial %d", name, trial)
			errs, answered := lookupsNeverAbsent(t, what, hs, ls)
			if !sorted && answered > 0 {
				t.Errorf("%s: %d lookups answered in a map out of order (%d failed); want every one to fail", what, answered, errs)
			}
		}
	}
}

// TestCheckedSearchAdjacentSwaps is the test above for a large map whose
// order check has not ended: each lookup checks the lines it compares and
// their neighbours, which finds two adjacent lines swapped wherever the
// key looked up is one of them.
func TestCheckedSearchAdjacentSwaps(t *testing.T) {
	old := syncOrderBytes
	syncOrderBytes = -1 // no whole-map check: the checked searches only
	t.Cleanup(func() { syncOrderBytes = old })
	r := rand.New(rand.NewPCG(14, 2))
	var errs, answered int
	for name, hd := range realMaps(t) {
		hs, ds := hd[0], hd[1]
		for trial := range 30 {
			ls := append([]string(nil), ds...)
			// Up to 3 swaps of two adjacent lines, no line in two of
			// them: each line is at most one place from its own.
			swapped := map[int]bool{}
			for range 1 + trial%3 {
				i := r.IntN(len(ls) - 1)
				if swapped[i] || swapped[i+1] {
					continue
				}
				swapped[i], swapped[i+1] = true, true
				ls[i], ls[i+1] = ls[i+1], ls[i]
			}
			e, a := lookupsNeverAbsent(t, fmt.Sprintf("%s trial %d", name, trial), hs, ls)
			errs += e
			answered += a
		}
	}
	if errs == 0 || answered == 0 {
		t.Errorf("%d lookups failed and %d answered; want some of each (a lookup far from a swap answers)", errs, answered)
	}
}

// TestLookupUnsortedMapCommandLine is the case the hostile tester found:
// the key "com,b)/", held on line 4, after "com,c)/".
func TestLookupUnsortedMap(t *testing.T) {
	content := "!fields {keys: [\"surt\"], values: [\"frequency\"]}\ncom,a)/ 1\ncom,c)/ 2\ncom,b)/ 3\ncom,d)/ 4\ncom,e)/ 5\n"
	for _, sync := range []int{SyncOrderCheckBytes, 0, -1} {
		old := syncOrderBytes
		syncOrderBytes = sync
		m := openMap(t, content)
		if sync == 0 {
			// A large map: checked in a goroutine; CheckOrder waits for it.
			if err := m.CheckOrder(); !errors.Is(err, ukvs.ErrOutOfOrder) || !strings.Contains(err.Error(), "map.ukvs: line 4") {
				t.Errorf("CheckOrder: %v; want ukvs.ErrOutOfOrder naming map.ukvs: line 4", err)
			}
		}
		for _, k := range []string{"com,b)/", "com,c)/"} {
			res, err := m.LookupSURT(k)
			if !errors.Is(err, ukvs.ErrOutOfOrder) || !strings.Contains(err.Error(), "map.ukvs: line") {
				t.Errorf("sync=%d: LookupSURT(%q) = %+v, %v; want ukvs.ErrOutOfOrder naming the file and a line", sync, k, res, err)
			}
			if _, err := m.LookupAt("http://b.com/", "2015"); err == nil && sync >= 0 {
				t.Errorf("sync=%d: LookupAt in an unsorted map: no error", sync)
			}
		}
		var out bytes.Buffer
		if _, err := m.LookupAll(&out, strings.NewReader("http://b.com/\n")); !errors.Is(err, ukvs.ErrOutOfOrder) {
			t.Errorf("sync=%d: LookupAll: %v; want it stopped by ukvs.ErrOutOfOrder", sync, err)
		}
		syncOrderBytes = old
	}
	_ = os.Remove
}

// TestCheckIsUkvsCheck: Map.Check refuses exactly what ukvs.Check (the
// rule of `mementomap check`) refuses, with the same error, the doubled
// lines the order check of lookups lets pass among them, and names the
// file.
func TestCheckIsUkvsCheck(t *testing.T) {
	const hdr = "!fields {\"keys\": [\"surt\"], \"values\": [\"frequency\"]}\n"
	const dt = "!fields {\"keys\": [\"surt\", \"datetime\"], \"values\": [\"frequency\"]}\n"
	maps := map[string]struct {
		content string
		want    error // nil: accepted
	}{
		"sorted":                    {hdr + "com,a)/ 1\ncom,b)/ 2/1\n", nil},
		"doubled line":              {hdr + "com,a)/ 1\ncom,b)/ 2/1\ncom,b)/ 2/1\ncom,c)/ 1\n", ukvs.ErrDuplicateKey},
		"doubled key, other values": {hdr + "com,a)/ 1\ncom,a)/ 3\n", ukvs.ErrDuplicateKey},
		"out of order":              {hdr + "com,b)/ 1\ncom,a)/ 1\n", ukvs.ErrOutOfOrder},
		"bad frequency":             {hdr + "com,a)/ 1/x\n", ukvs.ErrFrequency},
		"NUL in a key":              {hdr + "com,a)/a\x00b 1\n", ukvs.ErrNULKey},
		"datetime map":              {dt + "com,a)/ 2019 1\ncom,a)/ 2020 1\n", nil},
		"datetime map, doubled":     {dt + "com,a)/ 2019 1\ncom,a)/ 2019 1\n", ukvs.ErrDuplicateKey},
		"no headers":                {"com,a)/ 1\ncom,a)/ 1\n", ukvs.ErrDuplicateKey},
		"empty":                     {"", nil},
	}
	for name, tt := range maps {
		t.Run(name, func(t *testing.T) {
			wantN, wantErr := ukvs.Check(strings.NewReader(tt.content))
			if !errors.Is(wantErr, tt.want) || (tt.want == nil) != (wantErr == nil) {
				t.Fatalf("ukvs.Check = %v; want %v", wantErr, tt.want)
			}
			m := openMap(t, tt.content)
			n, err := m.Check()
			if n != wantN || (err == nil) != (wantErr == nil) || (err != nil && !strings.HasSuffix(err.Error(), ": "+wantErr.Error())) {
				t.Errorf("Map.Check = %d, %v; want ukvs.Check's %d, %v", n, err, wantN, wantErr)
			}
			if err != nil && (!errors.Is(err, tt.want) || !strings.HasPrefix(err.Error(), m.path+": ")) {
				t.Errorf("Map.Check error %q does not wrap %v or name %s", err, tt.want, m.path)
			}
		})
	}
}
