package mementomap

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// plainSearch returns a Map over data that never builds an index or a key
// table: every lookup is the plain binary search of the file.
func plainSearch(data []byte) *Map {
	m := FromBytes(data)
	m.lookups.Store(indexAfter)
	return m
}

// hashed returns a Map over data whose lookups go through its key table
// from the first one.
func hashed(t *testing.T, data []byte) *Map {
	t.Helper()
	m := FromBytes(data)
	m.lookups.Store(indexAfter)
	h := m.newKeyHash(nil)
	if h == nil {
		t.Fatalf("no key table for a map of %d bytes", len(data))
	}
	m.keys.Store(h)
	return m
}

// keyHashMaps returns sorted maps of random shapes: baselines of
// randomMap, their compactions (wildcard keys), and maps with blank lines,
// CRLF line ends, duplicate keys and extra columns.
func keyHashMaps(r *rand.Rand) []string {
	var maps []string
	for range 6 {
		keys := randomMap(r, 200+r.IntN(3000))
		var base strings.Builder
		base.WriteString("!meta {}\n")
		for i, k := range keys {
			fmt.Fprintf(&base, "%s %d/1\n", k, 1+r.IntN(5))
			if i%97 == 5 {
				base.WriteString("\n")
			}
		}
		maps = append(maps, base.String())
		var odd strings.Builder
		for i, k := range keys {
			end := "\n"
			if i%3 == 0 {
				end = "\r\n"
			}
			fmt.Fprintf(&odd, "%s %d/%d {\"i\":%d}%s", k, i%7, 1+i%3, i, end)
			if i%11 == 0 {
				fmt.Fprintf(&odd, "%s 99/9%s", k, end) // a duplicate: the first line decides
			}
			if i%53 == 0 {
				odd.WriteString("  \t\n")
			}
		}
		maps = append(maps, odd.String())
	}
	n := len(maps)
	for i := range n {
		if i%2 == 0 {
			var out strings.Builder
			if _, err := Compact(&out, strings.NewReader(maps[i]), opts(0.25+r.Float64()*2, 0.25+r.Float64()*2, i%4 == 2)); err == nil {
				maps = append(maps, out.String())
			}
		}
	}
	return append(maps, datetimeMap, "*  7/7\ncom,a)/ 1/1\ncom,a)/b 2/1\n")
}

// keyHashQueries returns lookup keys for map data: every key, its
// neighbours in key order, edits of it, wildcard forms and random keys of
// the same hosts.
func keyHashQueries(r *rand.Rand, data string) []string {
	var qs []string
	for _, l := range strings.Split(data, "\n") {
		k := string(keyOf([]byte(l)))
		if k == "" || k[0] == '!' {
			continue
		}
		qs = append(qs, k)
		if r.IntN(3) == 0 {
			qs = append(qs, k+"/x", k+"a", k[:r.IntN(len(k)+1)], k+"?q=1", strings.TrimSuffix(k, "*")+"z/y")
		}
	}
	qs = append(qs, randomMap(r, 500)...)
	qs = append(qs, "", "*", "?x", "com,*", "com,ex)/", "com,ex)", "com,ex,www)/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q/r/s/t/u/v/w/x/y/z")
	return qs
}

// TestKeyHashMatchesSearch is the property of the key table: on random
// sorted maps and random keys, lookups through it answer exactly what the
// plain binary search answers.
func TestKeyHashMatchesSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for mi, data := range keyHashMaps(r) {
		plain, fast := plainSearch([]byte(data)), hashed(t, []byte(data))
		for _, q := range keyHashQueries(r, data) {
			want, werr := plain.LookupSURT(q)
			got, gerr := fast.LookupSURT(q)
			if got != want || (werr == nil) != (gerr == nil) {
				t.Fatalf("map %d: LookupSURT(%q) with the key table = %+v, %v; binary search = %+v, %v", mi, q, got, gerr, want, werr)
			}
		}
	}
}

// TestKeyHashBuiltInBackground: a Map opened from a file builds its key
// table after indexAfter lookups, answers through it as before, and Close
// during a build stops it.
func TestKeyHashBuiltInBackground(t *testing.T) {
	var b strings.Builder
	var keys []string
	for i := range 30000 {
		k := fmt.Sprintf("com,h%d)/p/%d", 10000+i/3, i%3)
		keys = append(keys, k)
		fmt.Fprintf(&b, "%s %d/1\n", k, 1+i%9)
	}
	m := openMap(t, b.String())
	plain := plainSearch([]byte(b.String()))
	lookup := func(i int) {
		k := keys[(i*7919)%len(keys)]
		if i%2 == 1 {
			k += "x"
		}
		got, err := m.LookupSURT(k)
		want, _ := plain.LookupSURT(k)
		if err != nil || got != want {
			t.Fatalf("LookupSURT(%q) = %+v, %v; binary search %+v", k, got, err, want)
		}
	}
	for i := range indexAfter + 10 {
		lookup(i)
	}
	if m.keysDone == nil {
		t.Fatal("no key table build started")
	}
	<-m.keysDone
	if m.keys.Load() == nil {
		t.Fatal("no key table after the build")
	}
	for i := range 5000 {
		lookup(i)
	}

	m2 := openMap(t, b.String())
	for i := range indexAfter {
		m2.LookupSURT(keys[i])
	}
	done := make(chan error)
	go func() { done <- m2.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return while the key table was being built")
	}
	if _, err := m2.LookupSURT(keys[0]); err != ErrClosed {
		t.Fatalf("after Close: %v", err)
	}
}

// TestKeyHashTooLarge: the slot count respects the memory bound.
func TestKeyHashTooLarge(t *testing.T) {
	if n := keyHashSlots(1000); n < 1000*10/7 {
		t.Errorf("keyHashSlots(1000) = %d: load above 0.7", n)
	}
	if n := keyHashSlots(maxKeyHashBytes / 8); n != 0 {
		t.Errorf("keyHashSlots(%d) = %d, want 0 (over %d bytes)", maxKeyHashBytes/8, n, maxKeyHashBytes)
	}
}

// TestHashCandMatchesHash: the hash of a candidate from the key's states
// is the hash of the candidate written out, for keys of every length
// around the word boundaries.
func TestHashCandMatchesHash(t *testing.T) {
	h := &keyHash{seed: 0x1234_5678_9abc_def0}
	r := rand.New(rand.NewPCG(1, 1))
	var c candidates
	seen := map[uint64]string{}
	for n := range 80 {
		for range 20 {
			segs := []string{"com", "ex", "www", "a", "bb", "ccc", "dddddddd", "e/f"}
			var b strings.Builder
			b.WriteString(segs[r.IntN(len(segs))])
			for b.Len() < n {
				b.WriteString(",/)"[r.IntN(3):][:1] + segs[r.IntN(len(segs))])
			}
			k := b.String()
			c.build([]byte(k))
			h.states(&c)
			for i := range c.n {
				want := h.hash(c.key(i))
				if got := h.hashCand(&c, i); got != want {
					t.Fatalf("key %q candidate %d %q: hashCand %x, hash %x", k, i, c.key(i), got, want)
				}
				if o, ok := seen[want]; ok && o != string(c.key(i)) {
					t.Fatalf("%q and %q hash alike", o, c.key(i))
				}
				seen[want] = string(c.key(i))
			}
		}
	}
	if len(seen) < 1000 {
		t.Fatalf("only %d distinct keys tried", len(seen))
	}
}

// slotOf returns the key table slot of the line of key k in m, or -1.
func slotOf(m *Map, k string) int {
	h := m.keys.Load()
	for i := range h.slots {
		s := h.slots[i].Load()
		if s == 0 {
			continue
		}
		p := int(s&slotOffMask) - 1
		if string(keyOf(m.b[p:m.lineEnd(p)])) == k {
			return i
		}
	}
	return -1
}

// TestKeyHashChecksLineOnce: the first lookup that ends on a line checks
// it and marks its slot, later ones answer from the marked slot the same
// Match without checking it again; a bad line is never marked, and every
// lookup that ends on it is an ErrBadLine error, through the
// fingerprints as through the slots.
func TestKeyHashChecksLineOnce(t *testing.T) {
	data := "!meta {}\ncom,example)/* 7/2\ncom,example)/a 3/1\ncom,example)/b 1/x\norg,*\t5/1\n"
	m := hashed(t, []byte(data))
	good, bad := slotOf(m, "com,example)/*"), slotOf(m, "com,example)/b")
	if good < 0 || bad < 0 {
		t.Fatalf("slots %d, %d: keys missing from the key table", good, bad)
	}
	h := m.keys.Load()
	if h.slots[good].Load()&slotChecked != 0 || h.fps[good] == 0 {
		t.Fatalf("slot %x, fingerprint %d before any lookup", h.slots[good].Load(), h.fps[good])
	}
	want := Match{Key: "com,example)/*", Value: "7/2", Distance: 3}
	want.Frequency.UnmarshalText([]byte("7/2"))
	for i := range 3 {
		got, err := m.LookupSURT("com,example)/c/d")
		if err != nil || got != want {
			t.Fatalf("lookup %d: %+v, %v; want %+v", i, got, err, want)
		}
		if h.slots[good].Load()&slotChecked == 0 {
			t.Fatalf("lookup %d: the slot of the line it ended on is not marked checked", i)
		}
	}
	for i := range 3 {
		got, err := m.LookupSURT("com,example)/b")
		if !errors.Is(err, ErrBadLine) || !strings.Contains(err.Error(), "line 4") || got.Distance != -1 {
			t.Fatalf("lookup %d of the bad line: %+v, %v; want ErrBadLine naming line 4", i, got, err)
		}
		if h.slots[bad].Load()&slotChecked != 0 {
			t.Fatalf("lookup %d: the bad line's slot is marked checked", i)
		}
	}
	if got, err := m.LookupSURT("org,x)/"); err != nil || got.Key != "org,*" || got.Value != "5/1" {
		t.Fatalf("tab-separated line: %+v, %v", got, err)
	}
}
