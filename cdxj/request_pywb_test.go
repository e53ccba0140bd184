package cdxj

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// pywbShape returns the lines of testdata/pywbshape/iocom.cdxj and the
// cluster of 38 blocks of 5 lines built from them: the shape of pywb's
// ZipNum sample (see the README there). Block k (1-based) starts with line
// 5(k-1)+1; block 1 holds four lines of fablisol.do.com and the first of
// io.com, and the domain io.com spans all 38 blocks.
func pywbShape(t testing.TB) ([]string, *Cluster) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "pywbshape", "iocom.cdxj"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	// pywb's blocks do not end in a newline; neither do these.
	c := buildCluster(t, t.TempDir(), "iocom", lines, &ClusterOptions{LinesPerBlock: 5, NoFinalNewline: true})
	if n := countEntries(t, c); n != 38 {
		t.Fatalf("%d blocks, want 38", n)
	}
	return lines, c
}

func seq(from, to int64) []int64 {
	var s []int64
	for i := from; i <= to; i++ {
		s = append(s, i)
	}
	return s
}

func countEntries(t testing.TB, c *Cluster) int {
	n := 0
	for _, err := range c.Entries() {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	return n
}

// TestPywbPageCounts restates pywb's page counts over its ZipNum sample
// (test_zipnum.py, test_blocks_*): the domain spans every block; pages are
// ceil(blocks/pageSize) with pywb's default of 10 blocks; a key in the
// range of one block that holds none of its lines counts no block and no
// page; filters and closest do not change the count.
func TestPywbPageCounts(t *testing.T) {
	_, c := pywbShape(t)
	cases := []struct {
		name, query string
		want        PageCount
	}{
		{"exact, default page size", "url=http://dev.io.com/2015/ver.aspx?id=772&matchType=exact&showNumPages=true", PageCount{Blocks: 1, Pages: 1, PageSize: 10}},
		{"domain, default page size", "url=http://io.com/&matchType=domain&showNumPages=true", PageCount{Blocks: 38, Pages: 4, PageSize: 10}},
		{"domain, page size 4", "url=http://io.com/&matchType=domain&pageSize=4&showNumPages=true", PageCount{Blocks: 38, Pages: 10, PageSize: 4}},
		{"domain wildcard", "url=*.io.com&pageSize=4&showNumPages=true", PageCount{Blocks: 38, Pages: 10, PageSize: 4}},
		{"secondary index match only", "url=dev.io.com/2015/ver.aspx?id=773&pageSize=4&showNumPages=true", PageCount{Blocks: 0, Pages: 0, PageSize: 4}},
		{"before every block", "url=*.foo.bar&showNumPages=true", PageCount{Blocks: 0, Pages: 0, PageSize: 10}},
		{"after every block", "url=http://aaa.zz/&matchType=domain&showNumPages=true", PageCount{Blocks: 0, Pages: 0, PageSize: 10}},
		{"filters do not count", "url=*.io.com&pageSize=4&showNumPages=true&filter==status:200", PageCount{Blocks: 38, Pages: 10, PageSize: 4}},
		{"closest does not count", "url=*.io.com&pageSize=4&showNumPages=true&closest=20140126000000", PageCount{Blocks: 38, Pages: 10, PageSize: 4}},
		{"from and to do not count", "url=*.io.com&pageSize=4&showNumPages=true&from=2010&to=2011", PageCount{Blocks: 38, Pages: 10, PageSize: 4}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseReq(t, tc.query).NumPages(c, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestPywbPagedIndex restates pywb's showPagedIndex answers: the blocks of
// each page, the last block listed for a key past the end (the index
// cannot tell whether it holds captures there), nothing for a key before
// every block, and "Page 10 invalid: First Page is 0, Last Page is 9".
func TestPywbPagedIndex(t *testing.T) {
	lines, c := pywbShape(t)
	blockKey := func(k int) string { // the secondary index key of block k
		f := strings.SplitN(lines[5*(k-1)], " ", 3)
		return f[0] + " " + f[1]
	}
	blocks := func(t *testing.T, q string) ([]int64, error) {
		var out []int64
		for e, err := range parseReq(t, q).PagedIndex(c, nil) {
			if err != nil {
				return out, err
			}
			if e.Key != blockKey(int(e.Block)) {
				t.Errorf("block %d has key %q, want %q", e.Block, e.Key, blockKey(int(e.Block)))
			}
			out = append(out, e.Block)
		}
		return out, nil
	}
	cases := []struct {
		name, query string
		want        []int64
	}{
		{"first page", "url=http://io.com/&matchType=domain&showPagedIndex=true&pageSize=4&page=0", []int64{1, 2, 3, 4}},
		{"first page, wildcard query", "url=*.io.com/path_part_ignored/&showPagedIndex=true&pageSize=4&page=0", []int64{1, 2, 3, 4}},
		// Without page=, every block (pywb's documentation: as many lines
		// as showNumPages counts blocks; its implementation lists page 0).
		{"every block", "url=*.io.com&showPagedIndex=true&pageSize=4", seq(1, 38)},
		{"next page", "url=http://io.com/&matchType=domain&showPagedIndex=true&pageSize=4&page=1", []int64{5, 6, 7, 8}},
		{"last page", "url=http://io.com/&matchType=domain&showPagedIndex=true&pageSize=4&page=9", []int64{37, 38}},
		{"not found, exact", "url=http://aaa.aaa/&matchType=exact&showPagedIndex=true", nil},
		{"not found, domain", "url=http://aaa.aaa/&matchType=domain&showPagedIndex=true", nil},
		{"past the end lists the last block", "url=http://aaa.zz/&matchType=domain&showPagedIndex=true", []int64{38}},
		{"prefix", "url=http://dev.io.com/2015/&matchType=prefix&showPagedIndex=true", []int64{29, 30, 31, 32, 33, 34, 35, 36, 37, 38}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := blocks(t, tc.query)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	_, err := blocks(t, "url=http://io.com/&matchType=domain&showPagedIndex=true&pageSize=4&page=10")
	var pe *PageError
	if !errors.As(err, &pe) || err.Error() != "Page 10 invalid: First Page is 0, Last Page is 9" || !errors.Is(err, ErrQuery) {
		t.Errorf("page 10: %v", err)
	}
}

// TestPywbPages restates pywb's paged answers: the last page's lines, the
// same reversed, and an invalid page; then checks what pywb's tests imply
// without listing: the pages together are the unpaged answer, and exact,
// prefix and domain answers are those of a scan of the flat file.
func TestPywbPages(t *testing.T) {
	lines, c := pywbShape(t)
	last := lines[180:188] // blocks 37 and 38, all of the domain
	got, err := runLines(t, parseReq(t, "url=http://io.com/&matchType=domain&pageSize=4&page=9"), c)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(last, got); diff != "" {
		t.Errorf("last page (-want +got):\n%s", diff)
	}
	got, err = runLines(t, parseReq(t, "url=http://io.com/&matchType=domain&pageSize=4&page=9&sort=reverse"), c)
	if err != nil {
		t.Fatal(err)
	}
	rev := slices.Clone(last)
	slices.Reverse(rev)
	if diff := cmp.Diff(rev, got); diff != "" {
		t.Errorf("last page reversed (-want +got):\n%s", diff)
	}
	_, err = runLines(t, parseReq(t, "url=http://io.com/&matchType=domain&pageSize=4&page=10"), c)
	if err == nil || err.Error() != "Page 10 invalid: First Page is 0, Last Page is 9" {
		t.Errorf("page 10: %v", err)
	}
	// The pages of every size together give the unpaged answer.
	for _, q := range []string{"url=*.io.com", "url=io.com/*", "url=dev.io.com/2015/*", "url=io.com/&matchType=host", "url=io.com/*&from=2000&to=2009"} {
		whole, err := runLines(t, parseReq(t, q), c)
		if err != nil {
			t.Fatal(err)
		}
		for _, ps := range []int{1, 3, 4, 10, 50} {
			pc, err := parseReq(t, q+"&showNumPages=true&pageSize="+strconv.Itoa(ps)).NumPages(c, nil)
			if err != nil {
				t.Fatal(err)
			}
			var all []string
			for p := range pc.Pages {
				l, err := runLines(t, parseReq(t, q+"&pageSize="+strconv.Itoa(ps)+"&page="+strconv.Itoa(p)), c)
				if err != nil {
					t.Fatal(err)
				}
				all = append(all, l...)
			}
			if diff := cmp.Diff(whole, all); diff != "" {
				t.Errorf("%s, %d pages of %d: (-unpaged +pages):\n%s", q, pc.Pages, ps, diff)
			}
		}
	}
	// Exact, prefix and domain answers are those of a plain scan.
	flat := slices.Clone(lines)
	counts := map[string]int{}
	for _, q := range []string{"url=io.com", "url=io.com/categoria/index.php?id=44", "url=io.com/*", "url=io.com/categoria/*",
		"url=dev.io.com/2015/ver.aspx?id=799", "url=*.io.com", "url=io.com/x&matchType=host", "url=dev.io.com&matchType=host",
		"url=http://dev.io.com/2015/ver.aspx?id=77*"} {
		r := parseReq(t, q)
		rq, _ := r.Query()
		want := reference(t, flat, rq)
		got, err := runLines(t, r, c)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-scan +cluster):\n%s", q, diff)
		}
		counts[q] = len(got)
	}
	// The counts the data's README promises.
	if counts["url=*.io.com"] != 184 || counts["url=io.com/x&matchType=host"] != 90 || counts["url=dev.io.com&matchType=host"] != 94 {
		t.Errorf("domain, host and host counts %v, want 184, 90 and 94", counts)
	}
}
