package mementomap

import (
	"bytes"
	"context"
	"fmt"
	"github.com/mementokit/mementokit/cdxj"
	"runtime/debug"
	"strings"

	"github.com/mementokit/mementokit/surt"
	"github.com/mementokit/mementokit/ukvs"
)

// Truth is what an index really holds for a list of lookups: the ground
// truth of an evaluation (internal/spec/MEMENTOMAP.md, "Evaluation").
type Truth struct {
	Inputs []string // the lookups as given (URLs or SURTs)
	Keys   []string // their full SURTs (query included); "" when the input could not be canonicalized
	Held   []bool   // whether the index holds Keys[i], after the build filters
	URIRs  int64    // distinct URI-Rs of the index after the filters (the relative-cost denominator)
	Stats  BuildStats
}

// lookupKey returns the full SURT of a lookup input: SURTs (see isSURT)
// are taken as they are, anything else is canonicalized as a URL.
func lookupKey(in string) (string, error) {
	in = strings.TrimSpace(in)
	if isSURT(in) {
		return in, nil
	}
	return surt.Canonicalize(in)
}

// isSURT reports whether a lookup input is a SURT rather than a URL: its
// first ')' closes a host part, that is, comes after at least one byte and
// before any '/', '?' or '#'. A URL's host cannot hold ')', so a ')' in a
// URL is in its path, query or fragment, after one of those bytes; a
// SURT's path and query may hold anything ("://" in a query included).
func isSURT(in string) bool {
	i := strings.IndexByte(in, ')')
	return i > 0 && !strings.ContainsAny(in[:i], "/?#")
}

// LoadTruth streams the indexes once, with the same record handling and
// filters as [Build] under o, and records which of the lookups (URLs or
// SURTs) they hold (by full SURT, query included) and how many distinct
// URI-Rs they hold. Memory: the lookups (a hash set of their keys) plus, for
// the URI-R count, an external sort bounded by o.MemoryLimit.
func LoadTruth(ctx context.Context, inputs []cdxj.Searcher, lookups []string, o BuildOptions) (*Truth, error) {
	t := &Truth{Inputs: lookups, Keys: make([]string, len(lookups)), Held: make([]bool, len(lookups))}
	want := make(map[string][]int, len(lookups))
	for i, l := range lookups {
		k, err := lookupKey(l)
		if err != nil {
			continue
		}
		t.Keys[i] = k
		sk := strings.Replace(k, "?", "\x00", 1)
		want[sk] = append(want[sk], i)
	}
	if o.MemoryLimit <= 0 {
		o.MemoryLimit = DefaultSortMemory
	}
	b := newBuilder(o)
	b.s = newSorter(o.MemoryLimit, o.TempDir)
	b.sink = func(k []byte) error {
		if idx, ok := want[string(k)]; ok {
			for _, i := range idx {
				t.Held[i] = true
			}
		}
		return b.s.add(k, 1)
	}
	defer b.s.close()
	for _, in := range inputs {
		if err := b.read(ctx, in); err != nil {
			return nil, err
		}
	}
	err := b.s.each(func([]byte, uint64) error { t.URIRs++; return nil })
	t.Stats = b.st
	return t, err
}

// Eval is the evaluation of one map against a [Truth] (the paper's
// Section 6.3 measures, internal/spec/MEMENTOMAP.md "Evaluation").
type Eval struct {
	Lines          int64    // data lines of the map
	RelativeCost   float64  // Lines / Truth.URIRs
	Lookups        int64    // lookups evaluated (those with a key)
	TruePositive   int64    // held, and the map says present
	FalsePositive  int64    // not held, the map says present
	TrueNegative   int64    // not held, the map says absent
	FalseNegative  int64    // held, the map says absent: a bug, always
	Accuracy       float64  // (TP+TN) / lookups
	Precision      float64  // TP / (TP+FP); 1 when nothing was said present
	Recall         float64  // TP / (TP+FN); 1 when nothing is held
	FalseNegatives []string // up to 10 inputs the map missed
}

// Evaluate looks every key of t up in m and scores the answers. A recall
// below 1 means the map (or the code that made it) is wrong: zero false
// negatives is the contract of a MementoMap.
func Evaluate(m *Map, t *Truth) (Eval, error) {
	var e Eval
	n, err := m.DataLines()
	if err != nil {
		return e, err
	}
	e.Lines = n
	if t.URIRs > 0 {
		e.RelativeCost = float64(n) / float64(t.URIRs)
	}
	c := new(candidates)
	for i, k := range t.Keys {
		if k == "" {
			continue
		}
		if m.b == nil && m.f == nil {
			return e, ErrClosed
		}
		present := false
		if len(m.b) > 0 {
			c.build([]byte(k))
			present = m.lookupCandidates(c).Present()
		}
		e.Lookups++
		switch held := t.Held[i]; {
		case held && present:
			e.TruePositive++
		case held:
			e.FalseNegative++
			if len(e.FalseNegatives) < 10 {
				e.FalseNegatives = append(e.FalseNegatives, t.Inputs[i])
			}
		case present:
			e.FalsePositive++
		default:
			e.TrueNegative++
		}
	}
	e.Accuracy, e.Precision, e.Recall = 1, 1, 1
	if e.Lookups > 0 {
		e.Accuracy = float64(e.TruePositive+e.TrueNegative) / float64(e.Lookups)
	}
	if d := e.TruePositive + e.FalsePositive; d > 0 {
		e.Precision = float64(e.TruePositive) / float64(d)
	}
	if d := e.TruePositive + e.FalseNegative; d > 0 {
		e.Recall = float64(e.TruePositive) / float64(d)
	}
	return e, nil
}

// ErrFalseNegative is returned (wrapped) by [Eval.Check] when a map misses
// a URI its index holds.
var ErrFalseNegative = fmt.Errorf("mementomap: false negative (recall below 1.0): a bug in the map or in the code that made it")

// Check returns an error wrapping ErrFalseNegative when recall is below 1.
func (e Eval) Check() error {
	if e.FalseNegative == 0 {
		return nil
	}
	return fmt.Errorf("%w: %d of %d held lookups missed, e.g. %q", ErrFalseNegative, e.FalseNegative, e.TruePositive+e.FalseNegative, e.FalseNegatives)
}

// DataLines counts the non-blank data lines of the map (one pass over the
// file).
func (m *Map) DataLines() (_ int64, err error) {
	if m.b == nil {
		if m.f == nil {
			return 0, ErrClosed
		}
		return 0, nil
	}
	if m.damaged.Load() {
		return 0, m.changedErr()
	}
	defer m.endFault(debug.SetPanicOnFault(true), &err)
	var n int64
	p := m.start
	for p < len(m.b) {
		e := bytes.IndexByte(m.b[p:], '\n')
		end := len(m.b)
		if e >= 0 {
			end = p + e
		}
		if end > p && !isBlank(m.b[p:end]) {
			n++
		}
		p = end + 1
	}
	return n, nil
}

// Totals sums the frequencies of every data line ([ukvs.Frequency.Add]
// rules over the set of lines): the map's URI-M and URI-R totals.
func (m *Map) Totals() (_ ukvs.Frequency, err error) {
	if m.b == nil {
		if m.f == nil {
			return ukvs.Frequency{}, ErrClosed
		}
		return ukvs.Frequency{}, nil
	}
	if m.damaged.Load() {
		return ukvs.Frequency{}, m.changedErr()
	}
	defer m.endFault(debug.SetPanicOnFault(true), &err)
	var s, zero runSum
	p := m.start
	for p < len(m.b) {
		end := m.lineEnd(p)
		if !isBlank(m.b[p:end]) {
			_, v, _ := splitLine(m.b[p:end])
			var f ukvs.Frequency
			if len(v) > 0 {
				if err := f.UnmarshalText(v); err != nil {
					return ukvs.Frequency{}, fmt.Errorf("mementomap: at byte %d: %w", p, err)
				}
			}
			s.add(f)
		}
		p = end + 1
	}
	return s.since(&zero), nil
}

// MapStats describes a map's content ([Map.Stats]).
type MapStats struct {
	Lines         int64          // data lines
	Hosts         int64          // distinct host parts (the key before ')' or the wildcard)
	HostWildcards int64          // lines "H,*" (and the bare "*")
	PathWildcards int64          // lines "P/*"
	Exclusions    int64          // lines whose frequency holds nothing
	Total         ukvs.Frequency // the sum of all frequencies
	PathDepths    []int64        // lines per path depth (0 for the host root)
}

// Stats reads the whole map once and describes it. A malformed frequency
// is reported with its byte offset.
func (m *Map) Stats() (_ MapStats, err error) {
	var st MapStats
	if m.b == nil {
		if m.f == nil {
			return st, ErrClosed
		}
		return st, nil
	}
	if m.damaged.Load() {
		return MapStats{}, m.changedErr()
	}
	defer m.endFault(debug.SetPanicOnFault(true), &err)
	var s, zero runSum
	var prevHost []byte
	var ends [maxLevels]int
	p := m.start
	for p < len(m.b) {
		end := m.lineEnd(p)
		line := m.b[p:end]
		if !isBlank(line) {
			k, v, _ := splitLine(line)
			var f ukvs.Frequency
			if len(v) > 0 {
				if err := f.UnmarshalText(v); err != nil {
					return st, fmt.Errorf("mementomap: at byte %d: %w", p, err)
				}
			}
			s.add(f)
			st.Lines++
			if f.HoldsNothing() {
				st.Exclusions++
			}
			host := k
			if i := bytes.IndexByte(k, ')'); i >= 0 {
				host = k[:i]
			}
			if !bytes.Equal(host, prevHost) {
				st.Hosts++
				prevHost = append(prevHost[:0], host...)
			}
			switch {
			case bytes.HasSuffix(k, []byte("/*")):
				st.PathWildcards++
			case bytes.HasSuffix(k, []byte(",*")) || string(k) == "*":
				st.HostWildcards++
			}
			d := max(0, pathEnds(k, ends[:], maxLevels)-1)
			for len(st.PathDepths) <= d {
				st.PathDepths = append(st.PathDepths, 0)
			}
			st.PathDepths[d]++
		}
		p = end + 1
	}
	st.Total = s.since(&zero)
	return st, nil
}
