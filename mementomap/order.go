package mementomap

// The order check: a binary search trusts the map's lines to be sorted by
// key, and in a map out of order it can miss a key the file holds and
// answer absent, a false negative. So a Map checks the order of its lines
// once, in one scan of the mapped file, and until that check has passed
// it searches only through searchChecked, which checks the order of every
// line it reads. See Map.CheckOrder for the guarantee.

import (
	"bytes"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/mementokit/mementokit/ukvs"
)

// The states of a Map's order check.
const (
	orderUnknown = iota // not checked, or the check runs in its goroutine
	orderSorted         // every line checked: lookups use the fast searches
	orderBroken         // a line out of order: every lookup returns orderErr
)

// SyncOrderCheckBytes is the largest map (in bytes of the file) whose
// order its first lookup checks before it answers; a larger map is checked
// in a goroutine of its own, started by its first lookup. The check reads
// every line once, about 0.7–1 ms of CPU per MiB (BenchmarkCheckOrder:
// 1,030–1,400 MiB per CPU-second on a cdxgen map, at load 28), so a map of
// 16 MiB costs its first lookup about 12–16 ms.
const SyncOrderCheckBytes = 16 << 20

// syncOrderBytes is SyncOrderCheckBytes; tests set it to -1 to have no
// whole-map check at all, only the checked searches of a large map.
var syncOrderBytes = SyncOrderCheckBytes

// errOrderStopped ends a check stopped by Close.
var errOrderStopped = errors.New("mementomap: order check stopped")

// ordered reports whether the map's order was checked and found sound. It
// starts the check on its first call: synchronously for a map of at most
// syncOrderBytes, in a goroutine otherwise. It returns the check's error
// for a map out of order; false and nil mean the check is still running,
// and the caller must search through searchChecked.
func (m *Map) ordered() (bool, error) {
	switch m.order.Load() {
	case orderSorted:
		return true, nil
	case orderBroken:
		return false, m.orderErr
	}
	m.orderOnce.Do(func() {
		if syncOrderBytes < 0 {
			return // tests: the checked searches only
		}
		if len(m.b) <= syncOrderBytes {
			m.finishOrder(m.scanOrder(nil))
			return
		}
		m.orderDone = m.readInBackground(func() { m.finishOrder(m.scanOrder(m.closing.Load)) })
	})
	switch m.order.Load() {
	case orderSorted:
		return true, nil
	case orderBroken:
		return false, m.orderErr
	}
	return false, nil
}

// finishOrder records the result of a finished scan.
func (m *Map) finishOrder(err error) {
	switch {
	case err == nil:
		m.order.Store(orderSorted)
	case errors.Is(err, errOrderStopped):
	default:
		m.orderErr = err
		m.order.Store(orderBroken)
	}
}

// CheckOrder checks, once per Map, that the keys of the map's data lines
// never decrease (byte-wise; lines of one key are adjacent), and returns
// an error wrapping ukvs.ErrOutOfOrder naming the file and the first line
// out of order, or nil. It reads the whole map once, or waits for the
// check a lookup started. A command that looks up a few keys in a large
// map calls it first to have the guarantee below for the first lookup too.
//
// Guarantee: a lookup (LookupSURT, Lookup, LookupAt, LookupObserved,
// LookupAll, Get) never answers absent for a key the map holds without an
// error, in a map of any order, with one exception. Once the order check
// has found a line out of order, every lookup returns its error. A map of
// at most [SyncOrderCheckBytes] is checked by its first lookup, before it
// answers. A larger map is checked in a goroutine its first lookup starts
// (or by CheckOrder); until that check ends, each lookup checks the order
// of every line its binary searches compare (the keys found less than the
// key searched must increase with their offset, those not less must
// decrease, and the first must stay below the second) and of the lines
// next to where each search ends, and returns an error wrapping
// ukvs.ErrOutOfOrder on a line out of order. The exception: in that
// window, a line out of order that none of those reads meets (a line
// moved far from its place) can still be missed.
//
// A map whose file was truncated while open returns an error wrapping
// [ErrChanged].
func (m *Map) CheckOrder() (err error) {
	if ok, err := m.readable(); !ok {
		return err
	}
	defer m.endFault(debug.SetPanicOnFault(true), &err)
	if _, err := m.ordered(); err != nil {
		return err
	}
	if m.order.Load() == orderUnknown && m.orderDone != nil {
		<-m.orderDone
		if m.damaged.Load() {
			return m.changedErr()
		}
		if m.order.Load() == orderUnknown {
			return ErrClosed // stopped by Close
		}
	}
	return m.orderErr
}

// Check checks the whole map by the one rule of a well-formed map,
// [CheckMap], which `mementomap check` and the aggregator apply: ukvs.Check
// (the headers, every data
// line (ukvs.CheckLine: columns, frequency, datetime, no NUL in a key), and
// keys strictly increasing over all key columns, so that a line out of
// order is an error wrapping ukvs.ErrOutOfOrder and a doubled line (its
// keys repeat the previous line's) one wrapping ukvs.ErrDuplicateKey),
// at least one data line, one !fields header at most and a last line
// ended by "\n". The
// error names the file and the line ("FILE: ukvs: line N: ..."). On
// success it returns the number of data lines, and the map's lookups then
// use the fast searches ([Map.CheckOrder] has passed). A command that
// answers from a map it checks first (mementomap lookup) calls Check, so
// that it refuses what `mementomap check` refuses. It reads the whole map
// once. A map whose file was truncated while open returns an error
// wrapping [ErrChanged].
func (m *Map) Check() (n int64, err error) {
	if ok, err := m.readable(); !ok {
		return 0, err
	}
	defer m.endFault(debug.SetPanicOnFault(true), &err)
	name := m.path
	if name == "" {
		name = "map"
	}
	if n, err = CheckMap(name, bytes.NewReader(m.b)); err != nil {
		return n, err
	}
	return n, m.CheckOrder()
}

// scanOrder reads every data line once and returns an error wrapping
// ukvs.ErrOutOfOrder for the first whose key sorts before the previous
// non-blank line's, or errOrderStopped when stop (polled every 4,096
// lines) reports true.
func (m *Map) scanOrder(stop func() bool) error {
	b := m.b
	lineNo := int64(bytes.Count(b[:m.start], []byte{'\n'}))
	var prev []byte
	have := false
	for p := m.start; p < len(b); {
		le := len(b)
		if i := bytes.IndexByte(b[p:], '\n'); i >= 0 {
			le = p + i
		}
		lineNo++
		if line := b[p:le]; !isBlank(line) {
			k := keyOf(line)
			if have && bytes.Compare(k, prev) < 0 {
				return m.outOfOrder(lineNo, k, lineNo-1, prev, true)
			}
			prev, have = k, true
		}
		p = le + 1
		if lineNo&4095 == 0 && stop != nil && stop() {
			return errOrderStopped
		}
	}
	return nil
}

// outOfOrder is the error for the line lineNo, of key k, which sorts
// before the key earlier of line earlierNo, an earlier line (the line
// before it when previous is true).
func (m *Map) outOfOrder(lineNo int64, k []byte, earlierNo int64, earlier []byte, previous bool) error {
	name := m.path
	if name == "" {
		name = "map"
	}
	which := fmt.Sprintf("line %d", earlierNo)
	if previous {
		which = "the previous line"
	}
	return fmt.Errorf("mementomap: %s: line %d: %w: key %q sorts before the key %q of %s; lookups in a map out of order can miss held keys (sort it: LC_ALL=C sort)",
		name, lineNo, ukvs.ErrOutOfOrder, clipKey(string(k)), clipKey(string(earlier)), which)
}

// lineNoAt returns the 1-based line number of the line starting at p.
func (m *Map) lineNoAt(p int) int64 { return int64(bytes.Count(m.b[:p], []byte{'\n'})) + 1 }

// prevLine returns the start of the last non-blank line before the line
// starting at p, or -1.
func (m *Map) prevLine(p int) int {
	for p > m.start {
		end := p - 1
		ls := m.lineStart(end)
		if !isBlank(m.b[ls:end]) {
			return ls
		}
		p = ls
	}
	return -1
}

// searchChecked is searchRange over the whole map with the order of what
// it reads checked (Map.CheckOrder): it returns an error wrapping
// ukvs.ErrOutOfOrder when a line it compares sorts before a line it
// compared at a smaller offset, or the line it ends on is out of order
// with the non-blank lines around it.
func (m *Map) searchChecked(key []byte) (int, bool, error) {
	lo, hi := m.start, len(m.b)
	// The keys and line starts of the last line found less than key (at
	// the largest offset so far) and of the last found not less (at the
	// smallest offset): every line between them must sort between them.
	var loKey, hiKey []byte
	loPos, hiPos := -1, -1
	for lo < hi {
		ls := m.nextLineStart(lo+(hi-lo)/2, hi)
		if ls >= hi {
			ls = lo
		}
		ls2, le, ok := m.probe(ls, hi)
		if !ok {
			hi = ls
			continue
		}
		k := keyOf(m.b[ls2:le])
		if loPos >= 0 && bytes.Compare(k, loKey) < 0 {
			return 0, false, m.outOfOrder(m.lineNoAt(ls2), k, m.lineNoAt(loPos), loKey, false)
		}
		if hiPos >= 0 && bytes.Compare(hiKey, k) < 0 {
			return 0, false, m.outOfOrder(m.lineNoAt(hiPos), hiKey, m.lineNoAt(ls2), k, false)
		}
		if bytes.Compare(k, key) < 0 {
			lo, loKey, loPos = le+1, k, ls2
		} else {
			hi, hiKey, hiPos = ls, k, ls2
		}
	}
	// The neighbours of where the search ends (the line before it and
	// the one it ends on were compared above): the line before those must
	// not sort after the first, the line after them not before the second.
	if loPos >= 0 {
		if pp := m.prevLine(loPos); pp >= 0 {
			if pk := keyOf(m.b[pp:m.lineEnd(pp)]); bytes.Compare(loKey, pk) < 0 {
				return 0, false, m.outOfOrder(m.lineNoAt(loPos), loKey, m.lineNoAt(pp), pk, false)
			}
		}
	}
	ls, le, ok := m.probe(lo, len(m.b))
	if !ok {
		return len(m.b), false, nil
	}
	k := keyOf(m.b[ls:le])
	if ns, ne, ok := m.probe(le+1, len(m.b)); ok {
		if nk := keyOf(m.b[ns:ne]); bytes.Compare(nk, k) < 0 {
			return 0, false, m.outOfOrder(m.lineNoAt(ns), nk, m.lineNoAt(ls), k, false)
		}
	}
	return ls, bytes.Equal(k, key), nil
}

// lookupChecked is lookupCandidates through searchChecked, for a map
// whose order check has not ended: every candidate key is searched in
// turn, most specific first.
func (m *Map) lookupChecked(c *candidates) Match {
	for i := 0; i < c.n; i++ {
		k := c.key(i)
		p, ok, err := m.searchChecked(k)
		if err != nil {
			c.err = err
			return Match{Distance: -1}
		}
		if ok {
			return m.matchAt(c, p, k, i, false)
		}
	}
	return Match{Distance: -1}
}

// searchKey is the search of the lookups other than LookupSURT's: through
// the index x when there is one, and through searchChecked until the
// map's order check has passed.
func (m *Map) searchKey(x *blockIndex, key []byte) (int, bool, error) {
	sorted, err := m.ordered()
	switch {
	case err != nil:
		return 0, false, err
	case !sorted:
		return m.searchChecked(key)
	case x != nil:
		p, ok := m.find(x, key)
		return p, ok, nil
	}
	p, ok := m.search(key)
	return p, ok, nil
}
