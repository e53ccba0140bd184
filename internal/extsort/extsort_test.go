package extsort

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// lines returns n lines drawn with repeats, bytes above 0x7f, empty lines,
// prefixes of one another and CDXJ-like shapes.
func lines(n int, seed uint64) [][]byte {
	r := rand.New(rand.NewPCG(seed, 1))
	pool := [][]byte{{}, []byte("a"), []byte("ab"), []byte("a b"), []byte("\xffz"), []byte("é"), []byte("A")}
	var out [][]byte
	for range n {
		switch r.IntN(4) {
		case 0:
			out = append(out, pool[r.IntN(len(pool))])
		default:
			out = append(out, fmt.Appendf(nil, "com,example%d)/p/%d %014d {\"s\": %d}", r.IntN(30), r.IntN(500), 20000101000000+r.IntN(1000), r.IntN(3)))
		}
	}
	return out
}

// sortLines sorts ls with s, writing each line as often as it was added.
func sortLines(t *testing.T, s *Sorter, ls [][]byte) []byte {
	t.Helper()
	for _, l := range ls {
		if err := s.Add(l, 1); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	err := s.Each(func(key []byte, count uint64) error {
		for range count {
			out.Write(key)
			out.WriteByte('\n')
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func joined(ls [][]byte) []byte {
	var b bytes.Buffer
	for _, l := range ls {
		b.Write(l)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// TestMatchesCSort: the lines, written count times, are byte-identical to
// LC_ALL=C sort's output, in memory, spilled, and merged in several passes.
func TestMatchesCSort(t *testing.T) {
	ls := lines(5000, 7)
	in := filepath.Join(t.TempDir(), "in.txt")
	if err := os.WriteFile(in, joined(ls), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sort", in)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	want, err := cmd.Output()
	if err != nil {
		t.Fatalf("LC_ALL=C sort: %v", err)
	}
	sorted := slices.Clone(ls)
	slices.SortFunc(sorted, bytes.Compare)
	if !bytes.Equal(want, joined(sorted)) {
		t.Fatal("LC_ALL=C sort and bytes.Compare disagree on the test lines")
	}
	for _, c := range []struct {
		name         string
		limit, fanIn int
		minRuns      int
	}{
		{"memory", 1 << 30, MaxFanIn, 0},
		{"spilled", 20000, MaxFanIn, 2},
		{"passes", 2000, 3, 10},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			s := New(int64(c.limit), dir)
			s.fanIn = c.fanIn
			got := sortLines(t, s, ls)
			if !bytes.Equal(got, want) {
				t.Errorf("output differs from LC_ALL=C sort (%d vs %d bytes)", len(got), len(want))
			}
			if s.Runs() < c.minRuns {
				t.Errorf("%d runs, want at least %d", s.Runs(), c.minRuns)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("%d files left in the temporary folder", len(ents))
			}
		})
	}
}

// TestEachOfSumsCounts: the strings of several sorters, interleaved or in
// order, come out once each with their counts summed.
func TestEachOfSumsCounts(t *testing.T) {
	for _, interleaved := range []bool{false, true} {
		want := map[string]uint64{}
		var ss []*Sorter
		for i := range 3 {
			s := New(300, t.TempDir())
			for j := range 200 {
				k := fmt.Sprintf("%d-%03d", i, j%50)
				if interleaved {
					k = fmt.Sprintf("%03d", j%50)
				}
				n := uint64(i + 1)
				want[k] += n
				if err := s.Add([]byte(k), n); err != nil {
					t.Fatal(err)
				}
			}
			ss = append(ss, s)
		}
		got := map[string]uint64{}
		var prev []byte
		err := EachOf(ss, func(key []byte, count uint64) error {
			if prev != nil && bytes.Compare(prev, key) >= 0 {
				t.Errorf("%q after %q", key, prev)
			}
			prev = append(prev[:0], key...)
			got[string(key)] = count
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Errorf("interleaved=%v: %d keys, want %d", interleaved, len(got), len(want))
		}
		for k, n := range want {
			if got[k] != n {
				t.Errorf("interleaved=%v: %q count %d, want %d", interleaved, k, got[k], n)
			}
		}
	}
}

// TestFailedMergeCleansUp: the run files have no name, and when a merge
// pass fails (a run unreadable), the error is returned and Close releases
// every run.
func TestFailedMergeCleansUp(t *testing.T) {
	dir := t.TempDir()
	s := New(1, dir) // one string per run
	s.fanIn = 4
	for i := range 20 {
		if err := s.Add(fmt.Appendf(nil, "k%02d", 19-i), 1); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.spill(); err != nil {
		t.Fatal(err)
	}
	if len(s.runs) < 2*s.fanIn {
		t.Fatalf("%d runs, want more than %d so that merging takes passes", len(s.runs), 2*s.fanIn)
	}
	if ents, _ := os.ReadDir(dir); len(ents) > 0 {
		t.Errorf("run files have names in %s: %d entries; they must vanish with the process", dir, len(ents))
	}
	if err := s.runs[1].Close(); err != nil { // the first pass's merge fails
		t.Fatal(err)
	}
	err := s.Each(func([]byte, uint64) error { return nil })
	if err == nil {
		t.Fatal("Each succeeded without one of its runs")
	}
	if !errors.Is(err, os.ErrClosed) {
		t.Errorf("err = %v, want one wrapping os.ErrClosed", err)
	}
	if len(s.runs) != 0 {
		t.Errorf("%d runs still open after Each", len(s.runs))
	}
}

// TestCallbackErrorEnds: an error of the callback is returned as it is.
func TestCallbackErrorEnds(t *testing.T) {
	stop := errors.New("stop")
	s := New(1, t.TempDir())
	for _, k := range []string{"b", "a", "c"} {
		if err := s.Add([]byte(k), 1); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	err := s.Each(func([]byte, uint64) error { n++; return stop })
	if err != stop || n != 1 {
		t.Errorf("Each = %v after %d calls, want stop after 1", err, n)
	}
}

// TestLongStringsAcrossBlocks: strings that do not fit in the rest of a
// chunk block, strings longer than the largest block (2^blockBits bytes),
// and small strings after a spill in the blocks kept from before it (a
// block of one long string refilled with small ones past 2^blockBits
// bytes) come back whole and in order, as slices.Sort orders them.
func TestLongStringsAcrossBlocks(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 1))
	str := func(n int) []byte {
		l := make([]byte, n)
		for j := range l {
			l[j] = 'a' + byte(r.IntN(3))
		}
		return l
	}
	long := func() []byte { return str(1<<blockBits + 200<<10 + r.IntN(1000)) }
	var first, second [][]byte // before and after an explicit spill
	for i := range 3000 {
		switch i % 500 {
		case 7:
			first = append(first, long())
		case 8, 9:
			first = append(first, str(firstBlock+r.IntN(3*firstBlock)))
		default:
			first = append(first, str(1+r.IntN(100)))
		}
	}
	second = append(second, str(10))
	for range 40000 {
		second = append(second, str(1+r.IntN(100))) // fills the long strings' blocks
	}
	second = append(second, long(), str(5))
	want := slices.Concat(first, second)
	slices.SortFunc(want, bytes.Compare)
	for _, limit := range []int64{256 << 20, 5 << 20} { // one spill; several
		s := New(limit, t.TempDir())
		for _, l := range first {
			if err := s.Add(l, 1); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Spill(); err != nil {
			t.Fatal(err)
		}
		got := sortLines(t, s, second)
		if !bytes.Equal(got, joined(want)) {
			t.Errorf("limit %d: the sorted strings differ from slices.Sort's (%d runs)", limit, s.Runs())
		}
	}
}

// TestAppendMixedWithAdd: lines handed over with Append, in order, out of
// order and mixed with Add, in memory or spilled, come out as
// LC_ALL=C-sorted as Add alone sorts them, and only the keys that sorted
// at or after the last appended one went to the appended run.
func TestAppendMixedWithAdd(t *testing.T) {
	ls := lines(5000, 11)
	sorted := slices.Clone(ls)
	slices.SortFunc(sorted, bytes.Compare)
	want := sortLines(t, New(1<<30, t.TempDir()), ls)
	for _, c := range []struct {
		name  string
		in    [][]byte
		limit int
		add   func(i int) bool // Add instead of Append
	}{
		{"sorted", sorted, 1 << 30, func(int) bool { return false }},
		{"unsorted", ls, 1 << 30, func(int) bool { return false }},
		{"sorted-mixed-spilled", sorted, 2000, func(i int) bool { return i%3 == 0 }},
		{"unsorted-mixed-spilled", ls, 2000, func(i int) bool { return i%2 == 0 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			s := New(int64(c.limit), dir)
			var last []byte
			appended := 0
			for i, l := range c.in {
				var err error
				if c.add(i) {
					err = s.Add(l, 1)
				} else {
					if appended == 0 || bytes.Compare(l, last) >= 0 {
						appended++
						last = l
					}
					err = s.Append(l, 1)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if c.limit == 1<<30 && s.Runs() != 0 {
				t.Errorf("%d runs counted, want 0 (the appended run is not one)", s.Runs())
			}
			if c.name == "sorted" && s.Buffered() != 0 {
				t.Errorf("%d strings in the chunk, want 0 for a sorted input", s.Buffered())
			}
			var out bytes.Buffer
			err := s.Each(func(key []byte, count uint64) error {
				for range count {
					out.Write(key)
					out.WriteByte('\n')
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out.Bytes(), want) {
				t.Errorf("output differs from Add alone (%d vs %d bytes)", out.Len(), len(want))
			}
			if appended == 0 {
				t.Error("nothing was appended")
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("%d files left in the temporary folder", len(ents))
			}
		})
	}
}

// TestScanRereads: Scan leaves the sorter open, so that a second Scan and
// then EachOf read the same strings and counts again, whether the sorter
// holds an appended run, spilled runs and a chunk, or a chunk alone; and
// Ordered tells sorters of disjoint ascending ranges from overlapping ones.
func TestScanRereads(t *testing.T) {
	build := func(limit int64, base int) *Sorter {
		s := New(limit, t.TempDir())
		for j := range 300 {
			k := fmt.Appendf(nil, "%d-%03d", base, j) // ascending: the appended run
			if err := s.Append(k, uint64(j%3+1)); err != nil {
				t.Fatal(err)
			}
		}
		for j := range 100 {
			k := fmt.Appendf(nil, "%d-%03d", base, (j*37)%300) // out of order: chunk and spills
			if err := s.Add(k, 1); err != nil {
				t.Fatal(err)
			}
		}
		return s
	}
	read := func(scan func(func([]byte, uint64) error) error) string {
		var b bytes.Buffer
		if err := scan(func(k []byte, n uint64) error { fmt.Fprintf(&b, "%s %d\n", k, n); return nil }); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	for _, limit := range []int64{200, 1 << 20} {
		a, b := build(limit, 1), build(limit, 2)
		first := read(a.Scan)
		if n := bytes.Count([]byte(first), []byte("\n")); n != 300 {
			t.Fatalf("limit %d: %d strings, want 300", limit, n)
		}
		if !bytes.Contains([]byte(first), []byte("1-037 3\n")) { // 37%3+1 appended, once added
			t.Errorf("limit %d: 1-037 not summed to 3:\n%.200s", limit, first)
		}
		if again := read(a.Scan); again != first {
			t.Errorf("limit %d: second Scan differs", limit)
		}
		second := read(b.Scan)
		live, ordered, err := Ordered([]*Sorter{a, New(1, ""), b})
		if err != nil || len(live) != 2 || !ordered {
			t.Errorf("limit %d: Ordered = %d live, %v, %v; want 2, true, nil", limit, len(live), ordered, err)
		}
		if _, ordered, _ := Ordered([]*Sorter{b, a}); ordered {
			t.Errorf("limit %d: Ordered(b, a) = true, want false", limit)
		}
		all := read(func(fn func([]byte, uint64) error) error { return EachOf([]*Sorter{a, b}, fn) })
		if all != first+second {
			t.Errorf("limit %d: EachOf after Scan differs from the Scans", limit)
		}
	}
}
