package mementomap

import (
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
)

// checkFastSearch compares searchFast with searchRange (the reference
// search) for key over the whole data section of m.
func checkFastSearch(t *testing.T, m *Map, key string) {
	t.Helper()
	k := []byte(key)
	wp, wok := m.searchRange(m.start, len(m.b), k)
	gp, gok := m.searchIn(m.start, len(m.b), k)
	if gp != wp || gok != wok {
		t.Fatalf("search %q in %q: fast (%d, %v), reference (%d, %v)", key, m.b, gp, gok, wp, wok)
	}
}

// TestSearchFastMatchesReference runs the fast search against the
// reference one on sorted maps with the line shapes it hands over on:
// blank lines, CRLF and lone CR ends, tab-separated columns, keys that
// are prefixes of others, lines without a value.
func TestSearchFastMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	alphabet := []string{"a", "b", ",", ")", "/", "*", "\r", " ", "z"}
	ends := []string{"\n", "\r\n", "\r\r\n", "\n\n", "\n \n"}
	seps := []string{" ", "\t", " \t", ""}
	for round := range 400 {
		n := r.IntN(12)
		keys := map[string]bool{}
		for range n {
			var sb strings.Builder
			for range 1 + r.IntN(5) {
				sb.WriteString(alphabet[r.IntN(6)]) // no CR or space inside data keys
			}
			keys[sb.String()] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		var sb strings.Builder
		if round%3 == 0 {
			sb.WriteString("!id x\n")
		}
		for i, k := range sorted {
			sb.WriteString(k)
			sep := seps[r.IntN(len(seps))]
			sb.WriteString(sep)
			if sep != "" {
				sb.WriteString("1")
			}
			if i < len(sorted)-1 || r.IntN(2) == 0 {
				sb.WriteString(ends[r.IntN(len(ends))])
			}
		}
		m := FromBytes([]byte(sb.String()))
		for _, k := range sorted {
			checkFastSearch(t, m, k)
			checkFastSearch(t, m, k+"a")
			checkFastSearch(t, m, k[:len(k)-1])
		}
		for range 20 {
			var q strings.Builder
			for range r.IntN(6) {
				q.WriteString(alphabet[r.IntN(len(alphabet))])
			}
			checkFastSearch(t, m, q.String())
		}
	}
}

// FuzzSearchFast checks the fast search against the reference one on
// arbitrary bytes sorted as a map.
func FuzzSearchFast(f *testing.F) {
	f.Add("a 1\nb\t2\r\nc\r\r\n\n d 3\n", "b")
	f.Add("com,a)/ 1\ncom,a)/\r 2\n", "com,a)/\r")
	f.Fuzz(func(t *testing.T, data, key string) {
		lines := strings.Split(data, "\n")
		sort.Slice(lines, func(i, j int) bool {
			return string(keyOf([]byte(lines[i]))) < string(keyOf([]byte(lines[j])))
		})
		m := FromBytes([]byte(strings.Join(lines, "\n")))
		checkFastSearch(t, m, key)
		for _, l := range lines {
			checkFastSearch(t, m, string(keyOf([]byte(l))))
		}
	})
}
