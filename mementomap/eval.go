package mementomap

import (
	"bytes"
	"context"
	"fmt"
	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/extsort"
	"runtime/debug"
	"strings"
	"time"

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

// lookupKey returns the full SURT of a lookup input as [Build] makes its
// keys: the first of lookupKeys.
func lookupKey(in string) (string, error) {
	ks, err := lookupKeys(in)
	return ks.k[0], err
}

// keyChoices are the keys a lookup input may be held under, the first the
// one [Build] makes of it (k[:n]).
type keyChoices struct {
	k [3]string
	n int
}

func (c *keyChoices) add(k string) {
	for _, x := range c.k[:c.n] {
		if x == k {
			return
		}
	}
	c.k[c.n] = k
	c.n++
}

// lookupKeys returns the full SURTs a lookup input may be held under, the
// way [Build] makes the key of an index record, first. A URL is
// canonicalized with surt.Canonicalize (one key). A SURT (see isSURT) is
// checked as Build checks an index's SURT key, against the canonical SURT
// of the URL it stands for (appendURLFromSURT), http and https (a SURT
// carries no scheme, and ":443" or ":80" is a default port of one of
// them): when that differs ("com,example)/a\x00b" stands for
// "http://example.com/a\x00b", whose SURT is "com,example)/a%00b";
// "com,example,www)/A" for "com,example)/a"; "com,example:443)/" for
// "https://example.com:443/", "com,example)/"), the canonical SURTs come
// first and the SURT as given, which a map made by another tool may hold,
// last. A SURT holding a NUL byte is never one of them (no map holds one),
// but when its URL does not canonicalize.
func lookupKeys(in string) (keyChoices, error) {
	var ks keyChoices
	in = strings.TrimSpace(in)
	if !isSURT(in) {
		k, err := surt.Canonicalize(in)
		ks.add(k)
		return ks, err
	}
	var buf [256]byte
	u := appendURLFromSURT(buf[:0], []byte(in))
	if len(u) <= len("http://") {
		ks.add(in)
		return ks, nil
	}
	if simpleSURTMatches([]byte(in), u) {
		ks.add(in)
		return ks, nil
	}
	http := string(u)
	for _, u := range []string{http, "https://" + http[len("http://"):]} {
		if c, err := surt.Default.Canonicalize(u); err == nil && strings.IndexByte(c, ')') > 0 {
			ks.add(c)
		}
	}
	if ks.n == 0 || strings.IndexByte(in, 0) < 0 {
		ks.add(in)
	}
	return ks, nil
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
// the URI-R count, an external sort bounded by o.MemoryLimit. opts may be nil
// (the defaults of [BuildOptions]).
func LoadTruth(ctx context.Context, inputs []cdxj.Searcher, lookups []string, opts *BuildOptions) (*Truth, error) {
	o := buildOptions(opts)
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
	b.s = extsort.New(o.MemoryLimit, o.TempDir)
	b.sink = func(k []byte, _ int) error {
		if idx, ok := want[string(k)]; ok {
			for _, i := range idx {
				t.Held[i] = true
			}
		}
		return b.s.Add(k, 1)
	}
	defer b.s.Close()
	for _, in := range inputs {
		if err := b.read(ctx, in.Records(cdxj.Query{})); err != nil {
			return nil, err
		}
	}
	err := b.s.Each(func([]byte, uint64) error { t.URIRs++; return nil })
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
	// Expired counts the lookups that an observed map answered with a
	// negative older than its max age ([Map.LookupObserved]): such a
	// negative says nothing, the aggregator asks the archive, so they are
	// scored as "present" (true or false positives), never as negatives.
	Expired int64
}

// Evaluate is [EvaluateAt] at the present time, with its errors.
func Evaluate(m *Map, t *Truth) (Eval, error) { return EvaluateAt(m, t, time.Now()) }

// EvaluateAt looks every key of t up in m and scores the answers. A recall
// below 1 means the map (or the code that made it) is wrong: zero false
// negatives is the contract of a MementoMap. An observed map (time key
// [TimeKeyObserved]) is looked up as the aggregator routes with it,
// [Map.LookupObserved] at now under the map's max age: a negative counts
// as absent while it is trusted, and an expired one as present (the
// archive is asked; see Eval.Expired). Other maps do not depend on now.
//
// It stops at the first error, with the counts so far: [Map.DataLines]'s,
// ErrClosed when m is closed, and a lookup's: an error wrapping
// ErrBadLine (naming the file and line) for a line bad by its layout,
// ukvs.ErrOutOfOrder while the order check of an unsorted map runs, or
// ErrChanged when the file was changed in place while open; an observed
// map's lookups also return the ErrNotMap or ErrLoneCR of a [FromBytes]
// map that Open would refuse.
func EvaluateAt(m *Map, t *Truth, now time.Time) (Eval, error) {
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
		switch {
		case m.lay.timeKey == TimeKeyObserved:
			r, err := m.LookupObserved(k, now, 0)
			if err != nil {
				return e, err
			}
			present = r.Present()
			if r.Stale {
				e.Expired++
			}
		case len(m.b) > 0:
			c.build([]byte(k))
			c.err = nil
			res := m.lookupCandidates(c)
			if c.err != nil {
				return Eval{}, c.err
			}
			present = res.Present()
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
// file). It returns ErrClosed after Close, 0 and nil for an empty file, and
// an error wrapping ErrChanged, naming the file, when the map was found
// damaged or the pass faults on the mapping (the file was truncated while
// open).
func (m *Map) DataLines() (_ int64, err error) {
	if ok, err := m.readable(); !ok {
		return 0, err
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

// Totals returns the map's URI-M and URI-R totals: the sum
// ([ukvs.Frequency.Add] rules, over a set) of the frequencies of its keys
// that no wildcard line of the map covers. A wildcard's frequency stands
// for its whole subtree, the lines under it included ("org,arxiv)/* 2500"
// covers "org,arxiv)/ 100"), so those are not added again: the paper's
// Figure 2 map totals 54321/20000, its "*" line. In a map with a time key
// the frequency of a key is that of a lookup without a time (see
// [Map.LookupSURT]). One pass over the file; a bad line (ukvs.CheckLine)
// is an error wrapping [ErrBadLine] naming the file and the line.
func (m *Map) Totals() (ukvs.Frequency, error) {
	var s, zero runSum
	err := m.eachKey(func(g keyGroup) error {
		if !g.covered {
			s.add(g.f)
		}
		return nil
	}, nil)
	if err != nil {
		return ukvs.Frequency{}, err
	}
	return s.since(&zero), nil
}

// MapStats describes a map's content ([Map.Stats]).
type MapStats struct {
	Lines         int64          // data lines
	Keys          int64          // distinct keys (Lines, unless a time key column splits keys into several lines)
	TimeKey       string         // the time key column, TimeKeyDatetime or TimeKeyObserved, or ""
	Hosts         int64          // distinct host parts (the key before ')' or the wildcard)
	HostWildcards int64          // keys "H,*" (and the bare "*")
	PathWildcards int64          // keys "P/*"
	Exclusions    int64          // keys whose frequency holds nothing
	Covered       int64          // keys under a wildcard key of the map (not added to Total)
	Total         ukvs.Frequency // Map.Totals: the frequencies of the keys no wildcard covers
	PathDepths    []int64        // keys per path depth (0 for the host root)
	// Bad counts the data lines that are bad by the rule of ukvs.Check
	// (ukvs.CheckLine: fewer columns than the map's !fields gives them,
	// extra columns that are no JSON block, a malformed frequency or
	// datetime, a bad JSON block), which `check` refuses and lookups
	// answer with ErrBadLine: skipped, as a build skips a bad line under
	// SkipBad, and counted in no other figure. BadLines names the first 5
	// of them ("FILE: ukvs: line N, column C: cause").
	Bad      int64
	BadLines []string
}

// Stats reads the whole map once and describes it; bad lines are counted
// in Bad, not read. A key that sorts before the key of an earlier line
// ends the pass with an error wrapping ukvs.ErrOutOfOrder that names the
// file and the line: lookups in such a map are not to be trusted. A map
// with no data line (empty, or headers only) is refused as [CheckMap]
// refuses it: an error "mementomap: FILE: ukvs: line N: no data line"
// wrapping a *ukvs.ParseError and [ErrNoDataLine].
func (m *Map) Stats() (MapStats, error) {
	st := MapStats{TimeKey: m.lay.timeKey}
	var s, zero runSum
	var prevHost []byte
	var ends [maxLevels]int
	err := m.eachKey(func(g keyGroup) error {
		k := g.key
		st.Lines += int64(g.lines)
		st.Keys++
		if g.covered {
			st.Covered++
		} else {
			s.add(g.f)
		}
		if g.f.HoldsNothing() {
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
		return nil
	}, func(err error) {
		st.Bad++
		if len(st.BadLines) < 5 {
			st.BadLines = append(st.BadLines, strings.TrimPrefix(err.Error(), ErrBadLine.Error()+": "))
		}
	})
	if err != nil {
		return MapStats{}, err
	}
	if st.Lines == 0 && st.Bad == 0 {
		line := max(int64(bytes.Count(m.b, []byte{'\n'})), 1)
		return MapStats{}, fmt.Errorf("mementomap: %s: %w", m.path, &ukvs.ParseError{Line: line, Err: ErrNoDataLine})
	}
	st.Total = s.since(&zero)
	return st, nil
}

// keyGroup is one key of a map with its lines.
type keyGroup struct {
	key     []byte
	lines   int
	f       ukvs.Frequency // the key's frequency (anyTime for a map with a time key)
	covered bool           // a wildcard line of the map covers the key
}

// eachKey calls fn for every key of the map in order, telling whether a
// wildcard key of the map covers it (see wildcardTracker). The key is valid
// during the call. A data line that is bad by ukvs.CheckLine (Map.checkLine)
// is skipped and its error, naming the file and the line, passed to bad;
// when bad is nil, the first such line ends the pass with its error.
func (m *Map) eachKey(fn func(keyGroup) error, bad func(error)) (err error) {
	if ok, err := m.readable(); !ok {
		return err
	}
	defer m.endFault(debug.SetPanicOnFault(true), &err)
	var ls []keyLine
	var rec ukvs.Record
	var cur keyGroup
	var curKey []byte
	have := false
	wt := wildcardTracker{m: m}
	flush := func(nextKey []byte, nextPos int) error {
		if !have {
			return nil
		}
		cur.key = curKey
		if m.lay.timeKey != "" {
			_, _, cur.f = anyTime(m.lay.timeKey, ls)
		}
		cur.covered = wt.covered(curKey, nextKey, nextPos)
		return fn(cur)
	}
	p := m.start
	lineNo := int64(bytes.Count(m.b[:p], []byte{'\n'}))
	for p < len(m.b) {
		end := m.lineEnd(p)
		line := m.b[p:end]
		lineNo++
		if isBlank(line) {
			p = end + 1
			continue
		}
		if err := m.checkLine(&rec, p, line, lineNo); err != nil {
			if bad == nil {
				return err
			}
			bad(err)
			p = end + 1
			continue
		}
		k := keyOf(line)
		v := m.valueAt(line)
		var f ukvs.Frequency
		_ = f.UnmarshalText(v) // checked
		if f.HoldsNothing() && !f.URIR.Known {
			f.URIR = ukvs.Exactly(0) // an exclusion holds no URI-R either
		}
		if have && bytes.Compare(k, curKey) < 0 {
			// A map out of order answers lookups wrongly (a binary
			// search misses keys): no figure is given for it.
			name := m.path
			if name == "" {
				name = "map"
			}
			return fmt.Errorf("mementomap: %s: line %d: %w: key %q sorts before the key %q of an earlier line", name, lineNo, ukvs.ErrOutOfOrder, clipKey(string(k)), clipKey(string(curKey)))
		}
		if have && bytes.Equal(k, curKey) {
			cur.lines++
			ls = append(ls, keyLine{time: timeColumn(line), value: v, f: f})
			p = end + 1
			continue
		}
		if err := flush(k, p); err != nil {
			return err
		}
		cur, have = keyGroup{lines: 1, f: f}, true
		curKey = append(curKey[:0], k...)
		ls = append(ls[:0], keyLine{time: timeColumn(line), value: v, f: f})
		p = end + 1
	}
	return flush(nil, len(m.b))
}

// wildcardTracker tells, key by key in map order, whether a wildcard line
// of the map covers a key: "X/*" covers X and every key below "X/",
// "H,*" covers the host H, its paths ("H)...") and its subdomains
// ("H,..."), and "*" covers everything (the lookup order of
// internal/spec/MEMENTOMAP.md, "Keys"). A covering wildcard that sorts
// before the key was seen: it stays on a stack while the keys are in the
// block it covers after itself ("X/" or "H,"), which is contiguous. One
// that sorts after the key is searched in the map, but only when the next
// key shares with this one the prefix the wildcard shares (else the
// wildcard cannot sit between them and the map's end of that block), and
// the answers for the last few hundred wildcards are kept, since the keys
// of one host ask for the same host wildcards. Cost: one pass, plus a
// search per host and per key whose next key extends it.
type wildcardTracker struct {
	m     *Map
	open  [][]byte // wildcards seen whose covered block after them holds the current key; base prefixes
	c     candidates
	cache map[string]bool
}

func (w *wildcardTracker) covered(k, next []byte, nextPos int) bool {
	// Close the wildcards seen whose block the key has left.
	for len(w.open) > 0 && !bytes.HasPrefix(k, w.open[len(w.open)-1]) {
		w.open = w.open[:len(w.open)-1]
	}
	covered := len(w.open) > 0 || w.later(k, next, nextPos)
	if b, ok := wildcardBlock(k); ok {
		w.open = append(w.open, b)
	}
	return covered
}

// wildcardBlock returns, for a wildcard key, the prefix of the keys after
// it that it covers: "X/" for "X/*", "H," for "H,*", "" for "*".
func wildcardBlock(k []byte) ([]byte, bool) {
	n := len(k)
	switch {
	case n == 1 && k[0] == '*':
		return []byte{}, true
	case n >= 2 && k[n-1] == '*' && (k[n-2] == '/' || k[n-2] == ','):
		return append([]byte(nil), k[:n-1]...), true
	}
	return nil, false
}

// later reports whether a wildcard that sorts after k covers it.
func (w *wildcardTracker) later(k, next []byte, nextPos int) bool {
	base := k
	if b, ok := wildcardBlock(k); ok {
		if len(b) == 0 {
			return false // "*": nothing covers it
		}
		base = b[:len(b)-1] // "X" of "X/*", "H" of "H,*"
	}
	w.c.build(base)
	shared := commonPrefix(k, next)
	for i := range w.c.n {
		cand := w.c.key(i)
		if bytes.Equal(cand, k) || cand[len(cand)-1] != '*' {
			continue // the key itself, or the other root form
		}
		if bytes.Compare(cand, k) <= 0 {
			continue // sorts before: on the stack if present
		}
		if commonPrefix(cand, k) > shared {
			continue // it would sit between k and next, which share less
		}
		if w.present(cand, nextPos) {
			return true
		}
	}
	return false
}

func (w *wildcardTracker) present(k []byte, hint int) bool {
	if v, ok := w.cache[string(k)]; ok {
		return v
	}
	if w.cache == nil || len(w.cache) > 512 {
		w.cache = make(map[string]bool)
	}
	_, ok := w.m.seek(k, hint)
	w.cache[string(k)] = ok
	return ok
}
