package mementomap

import (
	"bytes"
	"encoding/binary"
	"sort"
	"sync/atomic"
)

// blockIndex is a sparse in-memory index of a map: the first key and the
// offset of the first line starting at or after every indexBlock bytes of
// the file. A search first bisects these keys, which sit together in
// memory, then the one block of the file they point to, so a lookup in a
// map far larger than the CPU caches touches a few cache lines of the index
// and one page of the map instead of a cache and TLB miss per step.
// Memory: about len(map)/indexBlock × (mean key length + 16) bytes, 1 to 2 %
// of the map.
type blockIndex struct {
	pre  []uint64 // the first 8 bytes of key i, big-endian, zero-padded: most comparisons end here
	pre2 []uint64 // bytes 8 to 16 of key i, the same way: most of the others end here
	keys []byte
	kend []int32 // keys[kend[i-1]:kend[i]] is key i
	pos  []int   // line start of block i

	tables     []atomic.Pointer[lineTable] // line table of block i, built on first use
	tableBytes atomic.Int64                // memory held by tables
}

// prefix8 returns the first 8 bytes of k as a big-endian number, zero
// padded, so that prefix8(a) < prefix8(b) implies a < b byte-wise.
func prefix8(k []byte) uint64 {
	var b [8]byte
	copy(b[:], k)
	return binary.BigEndian.Uint64(b[:])
}

// tail8 returns k after its first 8 bytes (empty for shorter keys). When
// two keys have the same prefix8, comparing prefix8 of their tail8 orders
// them by their next 8 bytes (or says they tie there too).
func tail8(k []byte) []byte {
	if len(k) <= 8 {
		return nil
	}
	return k[8:]
}

// indexBlock is the byte span of one index entry.
const indexBlock = 4096

// indexAfter is the number of lookups after which a Map builds its index:
// a few lookups are cheaper without it, a long series much cheaper with it.
const indexAfter = 2048

func (x *blockIndex) key(i int) []byte {
	s := int32(0)
	if i > 0 {
		s = x.kend[i-1]
	}
	return x.keys[s:x.kend[i]]
}

// buildIndex scans the map once, reading one line per block.
func (m *Map) buildIndex() *blockIndex {
	x := &blockIndex{}
	p := m.start
	for p < len(m.b) {
		ls, le, ok := m.probe(p, len(m.b))
		if !ok {
			break
		}
		if n := len(x.pos); n == 0 || ls > x.pos[n-1] {
			k := keyOf(m.b[ls:le])
			x.pre = append(x.pre, prefix8(k))
			x.pre2 = append(x.pre2, prefix8(tail8(k)))
			x.keys = append(x.keys, k...)
			x.kend = append(x.kend, int32(len(x.keys)))
			x.pos = append(x.pos, ls)
		}
		if len(x.keys) > 1<<31-1<<20 {
			break // keys past 2 GiB: the rest is searched without index
		}
		p = m.nextLineStart(ls+indexBlock, len(m.b))
	}
	x.tables = make([]atomic.Pointer[lineTable], len(x.pos))
	return x
}

// indexed returns the index, building it once enough lookups were made.
func (m *Map) indexed() *blockIndex {
	if x := m.index.Load(); x != nil {
		return x
	}
	if m.lookups.Add(1) != indexAfter {
		return nil
	}
	x := m.buildIndex()
	m.index.Store(x)
	m.startKeyHash()
	return x
}

// find is search through the index: it bisects the block keys for the
// last block starting at or before key and searches that block only.
func (m *Map) find(x *blockIndex, key []byte) (int, bool) {
	n := len(x.pos)
	// first block whose first key is greater than key
	kp, kp2 := prefix8(key), prefix8(tail8(key))
	b := sort.Search(n, func(i int) bool {
		if p := x.pre[i]; p != kp {
			return p > kp
		}
		if p := x.pre2[i]; p != kp2 {
			return p > kp2
		}
		return bytes.Compare(x.key(i), key) > 0
	})
	lo, hi := m.start, len(m.b) // past the last block: to the end of the map
	if b > 0 {
		lo = x.pos[b-1]
	}
	if b < n {
		hi = x.pos[b]
	}
	return m.searchIn(lo, hi, key)
}
