package cdxj

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestExactFromBoundKeepsShortTimestamps: an exact query whose From has
// more digits than a line's timestamp ("20140101000000" against a line
// "k 2014", which stands for the same instant) must still find that line.
// Before the fix the binary search started at "k 20140101000000", which
// sorts after "k 2014 ..." byte-wise, and the line was silently lost, in a
// sorted file and in a ZipNum cluster alike.
func TestExactFromBoundKeepsShortTimestamps(t *testing.T) {
	lines := []string{
		"com)/a-b 2014 {}",
		"com)/a-b 20140101000000 {}",
		"com)/a-b 20141231235959500 {}",
		"com,example)/ 201312 {}",
		"com,example)/ 201401 {}",
		"com,example)/ 20140101000001 {}",
		"com,example)/x?y=1 2014 {}",
		"com,example,www)/ 2013 {}",
		"com,example,www)/ 2014 {}",
	}
	tests := []struct {
		name string
		q    Query
		want []string
	}{
		{"year line equals a 14-digit From", Query{Key: "com)/a-b", From: "20140101000000"},
			[]string{"com)/a-b 2014 {}", "com)/a-b 20140101000000 {}", "com)/a-b 20141231235959500 {}"}},
		{"year line with 14-digit From and To", Query{Key: "com)/a-b", From: "20140101000000", To: "2014"},
			[]string{"com)/a-b 2014 {}", "com)/a-b 20140101000000 {}", "com)/a-b 20141231235959500 {}"}},
		{"month line equals a 12-digit From", Query{Key: "com,example)/", From: "201401010000"},
			[]string{"com,example)/ 201401 {}", "com,example)/ 20140101000001 {}"}},
		{"month line before a later From", Query{Key: "com,example)/", From: "20140101000001"},
			[]string{"com,example)/ 20140101000001 {}"}},
		{"year line of the only key in its block", Query{Key: "com,example)/x?y=1", From: "20140101000000"},
			[]string{"com,example)/x?y=1 2014 {}"}},
		{"last line of the file", Query{Key: "com,example,www)/", From: "20140101000000"},
			[]string{"com,example,www)/ 2014 {}"}},
		{"17-digit From", Query{Key: "com)/a-b", From: "20140101000000000"},
			[]string{"com)/a-b 2014 {}", "com)/a-b 20140101000000 {}", "com)/a-b 20141231235959500 {}"}},
	}
	content := strings.Join(lines, "\n") // no final newline
	dir := t.TempDir()
	sorted := NewSorted(strings.NewReader(content), int64(len(content)))
	cw, err := CreateCluster(dir, "c", &ClusterOptions{LinesPerBlock: 2})
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
	defer cluster.Close()
	for _, tc := range tests {
		for name, s := range map[string]Searcher{"sorted": sorted, "zipnum": cluster} {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				if diff := cmp.Diff(tc.want, collect(t, s, tc.q)); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
				if want := reference(t, lines, tc.q); !cmp.Equal(want, tc.want) {
					t.Errorf("table disagrees with the reference scan: %q", want)
				}
			})
		}
	}
}

// TestRecordsErrorsNameTheLine: Sorted.Records and Cluster.Records parse
// the matching lines with ParseLine, whose *ParseError knows no line
// number. Before the fix a bad line gave "cdxj: column 15: ..." with
// nothing saying where in a many-gigabyte index it was.
func TestRecordsErrorsNameTheLine(t *testing.T) {
	lines := []string{
		"com,example)/a 20140101000000 {\"url\": \"http://example.com/a\"}",
		"com,example)/b 2014XX01000000 {\"url\": \"http://example.com/b\"}",
		"com,example)/c 20140101000000 {\"url\": \"http://example.com/c\"}",
	}
	content := strings.Join(lines, "\n") + "\n"
	dir := t.TempDir()
	cw, err := CreateCluster(dir, "c", &ClusterOptions{LinesPerBlock: 2})
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
	defer cluster.Close()
	tests := []struct {
		name  string
		s     Searcher
		where string
	}{
		{"sorted file", NewSorted(strings.NewReader(content), int64(len(content))), fmt.Sprintf("line at byte %d, column 16:", len(lines[0])+1)},
		{"zipnum cluster", cluster, "c-00000.gz, block at byte 0+"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var urls []string
			var errs []error
			for rec, err := range tc.s.Records(Query{Key: "com,example)/", Match: MatchPrefix}) {
				if err != nil {
					errs = append(errs, err)
					continue
				}
				urls = append(urls, string(rec.Key()))
			}
			if diff := cmp.Diff([]string{"com,example)/a", "com,example)/c"}, urls); diff != "" {
				t.Errorf("records (-want +got):\n%s", diff)
			}
			if len(errs) != 1 {
				t.Fatalf("errors %v, want one", errs)
			}
			var pe *ParseError
			if !errors.As(errs[0], &pe) || !strings.Contains(errs[0].Error(), tc.where) {
				t.Errorf("error %q: want a *ParseError naming %q", errs[0], tc.where)
			}
		})
	}
}

// TestSortedFileWithByteOrderMark: a sorted index that starts with a UTF-8
// byte order mark. Before the fix the mark stayed on the first line, whose
// key then sorted after all others: an exact query for it found nothing
// and a prefix query returned the line with the mark in it.
func TestSortedFileWithByteOrderMark(t *testing.T) {
	const bom = "\xef\xbb\xbf"
	tests := []struct {
		name    string
		content string
		q       Query
		want    []string
	}{
		{"first key, exact", bom + "com,example)/ 2014 {}\ncom,example)/a 2014 {}\n", Query{Key: "com,example)/"}, []string{"com,example)/ 2014 {}"}},
		{"prefix over the first line", bom + "com,example)/ 2014 {}\ncom,example)/a 2014 {}\n", Query{Key: "com,example)/", Match: MatchPrefix},
			[]string{"com,example)/ 2014 {}", "com,example)/a 2014 {}"}},
		{"single line without newline", bom + "com,example)/ 2014 {}", Query{Key: "com,example)/"}, []string{"com,example)/ 2014 {}"}},
		{"before a header", bom + "!meta {}\ncom,example)/ 2014 {}\n", Query{Key: "com,example)/"}, []string{"com,example)/ 2014 {}"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := NewSorted(strings.NewReader(tc.content), int64(len(tc.content)))
			if diff := cmp.Diff(tc.want, collect(t, s, tc.q)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
