package mementomap

import (
	"bytes"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
)

// scanSearch is the plain-scan reference for the line tables: the start
// of the first non-blank line whose key is not less than key (or len(b)),
// whether it equals key, and the longest common prefix of key with that
// line and the one before it.
func scanSearch(m *Map, key []byte) (p int, ok bool, shared int) {
	prev := []byte(nil)
	for ls := m.start; ls < len(m.b); {
		le := m.lineEnd(ls)
		line := m.b[ls:le]
		if !isBlank(line) {
			k := keyOf(line)
			if bytes.Compare(k, key) >= 0 {
				s := commonPrefix(k, key)
				if prev != nil {
					s = max(s, commonPrefix(prev, key))
				}
				return ls, bytes.Equal(k, key), s
			}
			prev = k
		}
		ls = le + 1
	}
	if prev != nil {
		shared = commonPrefix(prev, key)
	}
	return len(m.b), false, shared
}

// tableMap builds a sorted map whose keys share long prefixes (beyond the
// 254 bytes an entry stores), differ only past an entry's 7 bytes, hold
// NUL bytes, and with some blank lines and a line longer than a table
// covers, so that every branch of the table search runs.
func tableMap(r *rand.Rand) (data []byte, keys []string) {
	hosts := []string{"com,a)/", "com,example)/images/", "org,x)/" + strings.Repeat("p", 250), "org,y)/" + strings.Repeat("q", 300)}
	segs := []string{"a", "b", "img/", "images/", "\x00", "z", "zzzzzzzz", "1", "/"}
	set := map[string]bool{}
	for range 6000 {
		var sb strings.Builder
		sb.WriteString(hosts[r.IntN(len(hosts))])
		for range 1 + r.IntN(6) {
			sb.WriteString(segs[r.IntN(len(segs))])
		}
		set[sb.String()] = true
	}
	set["com,long)/"+strings.Repeat("L", 70000)] = true
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	b.WriteString("!meta {}\n")
	for i, k := range keys {
		b.WriteString(k + " 1\n")
		if i%1500 == 7 {
			b.WriteString("\n")
		}
	}
	return b.Bytes(), keys
}

// TestLineTablesMatchScan checks the table search (position, equality
// and the neighbours' common prefix, which must never be underestimated)
// against a plain scan, and lookups with tables against lookups without
// any index.
func TestLineTablesMatchScan(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	data, keys := tableMap(r)
	m := FromBytes(data)
	x := m.buildIndex()
	m.index.Store(x)
	plain := FromBytes(data)
	var queries []string
	for i, k := range keys {
		if i%3 == 0 {
			queries = append(queries, k, k+"\x00", k+"a", k[:len(k)-1], k[:len(k)/2]+"~")
		}
	}
	for range 2000 {
		k := keys[r.IntN(len(keys))]
		queries = append(queries, k[:r.IntN(len(k)+1)]+string(rune('!'+r.IntN(90))))
	}
	tabled := 0
	for _, q := range queries {
		key := []byte(q)
		h := m.findTable(x, key, r.IntN(len(x.pos)+1)-1)
		if h.b < 0 {
			continue
		}
		tabled++
		wp, wok, wshared := scanSearch(m, key)
		if h.p != wp || h.ok != wok {
			t.Fatalf("findTable(%.40q) = (%d, %v), scan (%d, %v)", q, h.p, h.ok, wp, wok)
		}
		if !h.ok && h.shared < wshared {
			t.Fatalf("findTable(%.40q): shared prefix %d, scan %d (an underestimate skips held keys)", q, h.shared, wshared)
		}
		want, _ := plain.LookupSURT(q)
		got, _ := m.LookupSURT(q)
		if got != want {
			t.Fatalf("LookupSURT(%.40q) with tables = %+v, without index = %+v", q, got, want)
		}
	}
	if tabled < len(queries)/4 {
		t.Fatalf("only %d of %d queries went through the tables", tabled, len(queries))
	}
	unusable := 0
	for i := range x.tables {
		if t := x.tables[i].Load(); t != nil && !t.usable {
			unusable++
		}
	}
	if unusable == 0 {
		t.Error("no block fell back to the file: the blank lines and the long line were not exercised")
	}
	if x.tableBytes.Load() <= 0 {
		t.Error("tables hold no memory by their own count")
	}
}

// FuzzLineTables checks the table search against a plain scan on
// arbitrary lines sorted as a map.
func FuzzLineTables(f *testing.F) {
	f.Add("com,a)/ 1\ncom,a)/b 2\ncom,a)/b\x00 3\n", "com,a)/b")
	f.Add("a 1\n\nb 2\n", "a\x00")
	f.Fuzz(func(t *testing.T, data, key string) {
		lines := strings.Split(data, "\n")
		sort.Slice(lines, func(i, j int) bool {
			return string(keyOf([]byte(lines[i]))) < string(keyOf([]byte(lines[j])))
		})
		m := FromBytes([]byte(strings.Join(lines, "\n")))
		if m.err != nil || !plainKey([]byte(key)) {
			return
		}
		x := m.buildIndex()
		h := m.findTable(x, []byte(key), -1)
		if h.b < 0 {
			return
		}
		wp, wok, wshared := scanSearch(m, []byte(key))
		if h.p != wp || h.ok != wok || (!h.ok && h.shared < wshared) {
			t.Fatalf("findTable(%q) = %+v, scan (%d, %v, shared %d)", key, h, wp, wok, wshared)
		}
	})
}
