package memento

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// One URI-M listed twice with different rels: the merged memento keeps
// every rel, whichever line comes first.
func TestSortUnionsRelsOfDuplicates(t *testing.T) {
	const (
		plain = `<http://a.example/web/20010101000000/http://r.example/>; rel="memento"; datetime="Mon, 01 Jan 2001 00:00:00 GMT"`
		first = `<http://a.example/web/20010101000000/http://r.example/>; rel="first memento"; datetime="Mon, 01 Jan 2001 00:00:00 GMT"; collection="c1"`
		last  = `<http://a.example/web/20020101000000/http://r.example/>; rel="last memento"; datetime="Tue, 01 Jan 2002 00:00:00 GMT"`
	)
	cases := []struct {
		name  string
		lines []string
	}{
		{"plain_then_first", []string{plain, first, last}},
		{"first_then_plain", []string{first, plain, last}},
		{"apart_and_unsorted", []string{last, plain, last, first}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tm, err := ReadTimeMap(strings.NewReader(strings.Join(tc.lines, ",\n")), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(tm.Mementos) != 2 {
				t.Fatalf("%d mementos, want 2: %+v", len(tm.Mementos), tm.Mementos)
			}
			got := slices.Sorted(slices.Values(tm.Mementos[0].Rel))
			if diff := cmp.Diff([]string{"first", "memento"}, got); diff != "" {
				t.Errorf("rels of the merged memento (-want +got):\n%s", diff)
			}
			if v, ok := extraParam(tm.Mementos[0].Extra, "collection"); !ok || v != "c1" {
				t.Errorf("the duplicate's collection param was lost: %+v", tm.Mementos[0].Extra)
			}
			if tm.Duplicates != len(tc.lines)-2 {
				t.Errorf("Duplicates = %d, want %d", tm.Duplicates, len(tc.lines)-2)
			}
		})
	}
	// Rel is shared and read-only: merging must not write into the
	// slice of another memento.
	a := Memento{URIM: "u", Rel: []string{"memento"}}
	shared := a.Rel
	tm := &TimeMap{Mementos: []Memento{a, {URIM: "u", Rel: []string{"first", "memento"}}}}
	tm.Sort()
	if diff := cmp.Diff([]string{"memento"}, shared); diff != "" {
		t.Errorf("Sort wrote into a shared Rel slice:\n%s", diff)
	}
}

func extraParam(ps []Param, name string) (string, bool) {
	for _, p := range ps {
		if p.Name == name {
			return p.Value, true
		}
	}
	return "", false
}

// A relative or scheme-relative rel="original" is resolved in Original and
// kept as written in RawOriginal, for one document and for a paged fetch.
func TestRawOriginal(t *testing.T) {
	body := `<../r>; rel="original", <//m.example/1>; rel="memento"; datetime="Mon, 01 Jan 2001 00:00:00 GMT"`
	tm, err := ReadTimeMap(strings.NewReader(body), &ParseOptions{Base: "http://a.example/tm/x/y"})
	if err != nil {
		t.Fatal(err)
	}
	if tm.Original != "http://a.example/tm/r" || tm.RawOriginal != "../r" {
		t.Errorf("Original %q RawOriginal %q, want http://a.example/tm/r and ../r", tm.Original, tm.RawOriginal)
	}
	links, err := ParseLinkFormat(body, &ParseOptions{Base: "http://a.example/tm/x/y"})
	if err != nil {
		t.Fatal(err)
	}
	if nt, _ := NewTimeMap(links, nil); nt.RawOriginal != "../r" {
		t.Errorf("NewTimeMap: RawOriginal %q", nt.RawOriginal)
	}
	if m := Merge(nil, tm); m.RawOriginal != "../r" || m.Original != tm.Original {
		t.Errorf("Merge: Original %q RawOriginal %q", m.Original, m.RawOriginal)
	}

	p1 := `<{base}/tm/2>; rel="timemap", ` + mementoLines("{base}", "20000101000000")
	p2 := `<//r.example/page>; rel="original", ` + mementoLines("{base}", "20010101000000")
	a := newArchive(t, map[string]http.HandlerFunc{"/tm/1": serve(200, p1), "/tm/2": serve(200, strings.TrimSuffix(p2, ",\n"))})
	ft, err := (&Client{}).FetchTimeMap(context.Background(), a.URL+"/tm/1")
	if err != nil {
		t.Fatal(err)
	}
	if ft.Original != "http://r.example/page" || ft.RawOriginal != "//r.example/page" {
		t.Errorf("paged: Original %q RawOriginal %q", ft.Original, ft.RawOriginal)
	}
}
