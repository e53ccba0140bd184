package cdxj

import (
	"math/rand"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRandomFilesMatchReference builds small sorted indexes in the shapes
// real files come in (headers, blank lines, CRLF, no final
// newline, keys that are prefixes of other hosts, short and 17-digit
// timestamps), as a sorted file and as ZipNum clusters of random block and
// part sizes, and compares every answer with the reference scan. It found
// the exact-match From bug (TestExactFromBoundKeepsShortTimestamps).
func TestRandomFilesMatchReference(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	hosts := []string{"com", "com,example", "com,example2", "com,example,www", "com,example-shop", "org,a", "com,exampl", "com,example,a,b"}
	paths := []string{")/", ")/a", ")/a/b", ")/ab", ")/a-b", ")", ")/x?y=1", ""}
	stamps := []string{"2014", "20140101000000", "20141231235959", "2013", "201412", "20150101000000", "20141231235959500", "19990101000000"}
	iterations := 40
	if testing.Short() {
		iterations = 8
	}
	for it := 0; it < iterations; it++ {
		var lines []string
		for range rng.Intn(12) + 1 {
			lines = append(lines, hosts[rng.Intn(len(hosts))]+paths[rng.Intn(len(paths))]+" "+stamps[rng.Intn(len(stamps))]+` {"url": "x"}`)
		}
		slices.Sort(lines)
		lines = slices.Compact(lines)
		var b strings.Builder
		if rng.Intn(3) == 0 {
			b.WriteString("!meta {}\n")
		}
		if rng.Intn(4) == 0 {
			b.WriteString(" CDX N b a\n")
		}
		nl := "\n"
		if rng.Intn(3) == 0 {
			nl = "\r\n"
		}
		for i, l := range lines {
			b.WriteString(l)
			if i < len(lines)-1 || rng.Intn(2) == 0 {
				b.WriteString(nl)
			}
			if i < len(lines)-1 && rng.Intn(6) == 0 {
				b.WriteString(nl + nl) // a blank line
			}
		}
		content := b.String()
		dir := t.TempDir()
		cw, err := CreateCluster(dir, "c", &ClusterOptions{LinesPerBlock: rng.Intn(3) + 1, BlocksPerPart: rng.Intn(3), CDXJIndex: rng.Intn(2) == 0, WriteLoc: rng.Intn(2) == 0})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lines {
			if err := cw.WriteLine([]byte(l)); err != nil {
				t.Fatal(err)
			}
		}
		if err := cw.Commit(); err != nil {
			t.Fatal(err)
		}
		cluster, err := OpenCluster(filepath.Join(dir, "c.idx"), nil)
		if err != nil {
			t.Fatal(err)
		}
		searchers := map[string]Searcher{"sorted": NewSorted(strings.NewReader(content), int64(len(content))), "zipnum": cluster}
		for range 20 {
			q := Query{Match: MatchType(rng.Intn(4))}
			if rng.Intn(2) == 0 {
				q.Key, _, _ = strings.Cut(lines[rng.Intn(len(lines))], " ")
			} else {
				q.Key = hosts[rng.Intn(len(hosts))] + paths[rng.Intn(len(paths))]
			}
			if q.Match == MatchPrefix && rng.Intn(3) == 0 {
				q.Key = q.Key[:rng.Intn(len(q.Key)+1)]
			}
			if rng.Intn(2) == 0 {
				q.From = stamps[rng.Intn(len(stamps))]
			}
			if rng.Intn(2) == 0 {
				q.To = stamps[rng.Intn(len(stamps))]
			}
			if _, err := q.compile(); err != nil {
				continue // from after to, empty key: TestQueryErrors
			}
			want := reference(t, lines, q)
			for name, s := range searchers {
				if diff := cmp.Diff(want, collect(t, s, q)); diff != "" {
					t.Fatalf("%s: %+v over %q (-want +got):\n%s", name, q, content, diff)
				}
			}
		}
		cluster.Close()
	}
}
