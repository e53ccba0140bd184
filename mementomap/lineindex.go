package mementomap

// The line tables: a second level under the sparse block index. For each
// block it has visited, a Map keeps a compact table with one entry per line
// of the block: the length of the common prefix of the line's key with the
// block's first key, the next 5 key bytes after that prefix, and the line's
// offset in the block. A search bisects these entries, which sit together
// in memory, and reads the mapped file only to confirm the one line it
// ends on (or not at all, when the entries alone prove the key absent):
// with SURT keys, the lines of a block share a long prefix, so the 5 bytes
// after each line's shared prefix order almost every pair.
//
// Ordering by an entry alone, for a key Q in the block (F <= Q < the next
// block's first key, F the block's first key, q = lcp(Q, F)) and a line
// key L with l = lcp(L, F): if l > q, L < Q (L agrees with F where Q
// already exceeds it); if l < q, L > Q (L exceeds F where Q still agrees
// with it); if l == q, the zero-padded 5 bytes of L and Q after the prefix
// order them when they differ, and the line itself decides when they tie.
// This holds for a map sorted byte-wise, the same trust the binary search
// puts in the file.
//
// A table is built by scanning its block (about 4 KiB) on the first search
// that lands in it, so Open stays constant-time and the first lookups pay
// one block scan each. Cost: 8 bytes per line plus about 64 bytes per
// block (about 14 % of a map with 55-byte lines), at most maxLineTableBytes
// for the whole map; blocks beyond that budget are searched in the file.
// A key sharing more than maxTablePrefix bytes with its block's first key
// is searched in the file too.

import (
	"bytes"
	"math/bits"
	"sort"
)

// maxLineTableBytes bounds the memory of all line tables of one Map.
const maxLineTableBytes = 256 << 20

// maxTableSpan is the longest block span a table covers: offsets are
// stored in 16 bits.
const maxTableSpan = 1 << 16

// maxTablePrefix is the longest common prefix with a block's first key an
// entry stores; a key sharing more with it is searched in the file.
const maxTablePrefix = 254

// lineTable is the table of one block. A table with usable == false marks
// a block with lines the fast comparison does not handle (blank lines,
// lines starting with a space or tab), or too long; it is searched in the
// file.
//
// Entry i packs line i's key L in its top 48 bits as (255 - min(lcp(L,
// F), 255)) << 40 | the 5 bytes of L after that prefix, zero-padded:
// comparing two such numbers compares the keys by the rule above (a longer
// prefix with F is a smaller key), and, the lines being sorted, the
// entries are sorted too. Its low 16 bits are the start of line i, from
// the block's start.
type lineTable struct {
	usable bool
	enc    []uint64 // entry of line i
}

// lineTableBytes is the memory of a table of n lines, with its headers.
func lineTableBytes(n int) int64 { return int64(8*n + 64) }

// entryKey returns the key part of an entry (or of a query from
// encodeEntry), entryOff the line offset.
func entryKey(e uint64) uint64 { return e >> 16 }
func entryOff(e uint64) int    { return int(uint16(e)) }

var unusableTable = &lineTable{}

// encodeEntry packs key k with l = lcp(k, F) as a table entry.
func encodeEntry(k []byte, l int, off int) uint64 {
	l = min(l, 255)
	return uint64(255-l)<<56 | prefix8(k[min(l, len(k)):])>>24<<16 | uint64(uint16(off))
}

// table returns the line table of block i, building it when it is missing
// and the budget allows; nil means search the file.
func (m *Map) table(x *blockIndex, i int) *lineTable {
	if t := x.tables[i].Load(); t != nil {
		if !t.usable {
			return nil
		}
		return t
	}
	if x.tableBytes.Load() > maxLineTableBytes {
		return nil
	}
	t := m.buildTable(x, i)
	if !x.tables[i].CompareAndSwap(nil, t) {
		t = x.tables[i].Load()
	} else if t.usable {
		x.tableBytes.Add(lineTableBytes(len(t.enc)))
	}
	if !t.usable {
		return nil
	}
	return t
}

// blockEnd returns the end of block i's span.
func (m *Map) blockEnd(x *blockIndex, i int) int {
	if i+1 < len(x.pos) {
		return x.pos[i+1]
	}
	return len(m.b)
}

// buildTable scans block i once.
func (m *Map) buildTable(x *blockIndex, i int) *lineTable {
	lo, hi := x.pos[i], m.blockEnd(x, i)
	if hi-lo > maxTableSpan {
		return unusableTable
	}
	first := x.key(i)
	n := bytes.Count(m.b[lo:hi], []byte{'\n'}) + 1
	t := &lineTable{usable: true, enc: make([]uint64, 0, n)}
	for p := lo; p < hi; {
		le := m.lineEnd(p)
		switch m.b[p] {
		case ' ', '\t', '\r', '\n':
			return unusableTable
		}
		k := keyOf(m.b[p:le])
		t.enc = append(t.enc, encodeEntry(k, commonPrefix(k, first), p-lo))
		p = le + 1
	}
	return t
}

// tableHit is where a search through the tables ended.
type tableHit struct {
	p      int  // start of the first line whose key is not less than the key (or a block end)
	ok     bool // that line's key equals the key
	b      int  // the block searched, -1 when the tables were not used
	shared int  // when !ok: the longest common prefix of the key with the lines around p, or more
}

// blockOf returns the last block whose first key is not greater than key
// (-1 when key is before the first block), looking at block hint and its
// successor before bisecting the whole index.
func (x *blockIndex) blockOf(key []byte, hint int) int {
	n := len(x.pos)
	if hint >= 0 && hint < n && bytes.Compare(x.key(hint), key) <= 0 &&
		(hint+1 == n || bytes.Compare(x.key(hint+1), key) > 0) {
		return hint
	}
	kp, kp2 := prefix8(key), prefix8(tail8(key))
	return sort.Search(n, func(i int) bool {
		if p := x.pre[i]; p != kp {
			return p > kp
		}
		if p := x.pre2[i]; p != kp2 {
			return p > kp2
		}
		return bytes.Compare(x.key(i), key) > 0
	}) - 1
}

// findTable searches key (a plainKey) through the block index and the line
// tables, starting from block hint (-1 for none). It returns b == -1 when
// the tables do not cover key's block; the caller then searches the file.
func (m *Map) findTable(x *blockIndex, key []byte, hint int) tableHit {
	b := x.blockOf(key, hint)
	if b < 0 {
		return tableHit{b: -1}
	}
	t := m.table(x, b)
	if t == nil {
		return tableHit{b: -1}
	}
	first := x.key(b)
	ql := commonPrefix(key, first)
	if ql > maxTablePrefix {
		return tableHit{b: -1}
	}
	q := entryKey(encodeEntry(key, ql, 0))
	base := x.pos[b]
	enc := t.enc
	// lo: the first entry not less than q; hi: the first greater.
	lo, hi := 0, len(enc)
	for lo < hi {
		j := int(uint(lo+hi) >> 1)
		if entryKey(enc[j]) < q {
			lo = j + 1
		} else {
			hi = j
		}
	}
	hi = lo
	for hi < len(enc) && entryKey(enc[hi]) == q {
		hi++
	}
	// The entries tie on [lo, hi): their lines decide.
	for a, z := lo, hi; a < z; {
		j := int(uint(a+z) >> 1)
		if c, _ := m.cmpAt(base+entryOff(enc[j]), key); c < 0 {
			a = j + 1
			lo = a
		} else {
			z = j
		}
	}
	h := tableHit{b: b}
	if lo == len(enc) {
		h.p = m.blockEnd(x, b) // the next block's first key is greater
		if b+1 < len(x.pos) {
			h.shared = commonPrefix(x.key(b+1), key)
		}
	} else {
		h.p = base + entryOff(enc[lo])
		if lo < hi {
			if c, _ := m.cmpAt(h.p, key); c == 0 {
				h.ok = true
				return h
			}
		}
		h.shared = m.entryPrefix(t, base, lo, key, q)
	}
	if lo > 0 { // always, in a sorted map: line 0 is the block's first key, less than key
		h.shared = max(h.shared, m.entryPrefix(t, base, lo-1, key, q))
	} else {
		h.shared = len(key) // unsorted: try every candidate
	}
	return h
}

// entryPrefix returns the common prefix length of key, whose entry is q,
// with line j of t, or more (never less: an overestimate only makes a
// lookup try a key it could have skipped). It reads the line when the
// entry cannot tell.
func (m *Map) entryPrefix(t *lineTable, base, j int, key []byte, q uint64) int {
	e := t.enc[j]
	l, ql := 255-int(e>>56), 255-int(q>>40)
	if l != ql {
		return min(l, ql)
	}
	if d := (entryKey(e) ^ q) << 24; d != 0 {
		return ql + bits.LeadingZeros64(d)/8
	}
	p := base + entryOff(e)
	return commonPrefix(keyOf(m.b[p:m.lineEnd(p)]), key)
}
