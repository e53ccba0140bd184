package cdxgen

import (
	"fmt"
	"slices"
	"strings"
)

// Rekey returns a copy of lines (CDXJ lines as [Generator.Write] writes
// them, with a `"url": "…"` member) in which every line i for which pick
// returns j >= 0 carries the URL of line j, its own SURT key and timestamp
// kept. The result is still sorted by key, but some keys differ from
// surt.Canonicalize of their record's URL, so a MementoMap build re-keys
// those records and their URI-Rs may sort anywhere: the shape of an index
// made by another canonicalizer. pick is called once per line with its
// index and must return -1 or an index into lines. The error names the
// first line (1-based) that has no url member or a pick out of range.
func Rekey(lines []string, pick func(i int) int) ([]string, error) {
	urlOf := func(i int) (string, error) {
		_, rest, ok := strings.Cut(lines[i], `"url": "`)
		u, _, ok2 := strings.Cut(rest, `"`)
		if !ok || !ok2 {
			return "", fmt.Errorf("cdxgen: line %d: no url member: %q", i+1, lines[i])
		}
		return u, nil
	}
	out := slices.Clone(lines)
	for i := range out {
		j := pick(i)
		if j < 0 {
			continue
		}
		if j >= len(lines) {
			return nil, fmt.Errorf("cdxgen: line %d: pick %d is past the %d lines", i+1, j, len(lines))
		}
		own, err := urlOf(i)
		if err != nil {
			return nil, err
		}
		other, err := urlOf(j)
		if err != nil {
			return nil, err
		}
		out[i] = strings.Replace(out[i], `"url": "`+own+`"`, `"url": "`+other+`"`, 1)
	}
	return out, nil
}
