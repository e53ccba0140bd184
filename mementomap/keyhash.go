package mementomap

// The key table: a hash table of every key of a map, built once a Map is
// in steady use. Each lookup key then costs one hash and one probe of the
// table (a cache miss) instead of a search through the block index and a
// line table, and the mapped file is read only for the line that matches
// (or, about once in 16 million probes, for a line whose tag collides).
// The wildcard keys of a lookup whose exact key is absent are hashed
// together and their slots read before any is examined, so that their
// cache misses overlap.
//
// A slot is 8 bytes: 24 bits of the key's hash (the tag) and the line's
// offset plus one (0 marks an empty slot), in 40 bits. Open addressing
// with linear probing at a load of at most 0.7: about 11.5 bytes per map
// line, at most maxKeyHashBytes; a larger map, or one of 2^40 bytes or
// more, has no key table and is searched through the block index and the
// line tables. The table is built in one scan of the map in a goroutine of
// its own, started by the lookup that builds the block index; lookups go
// through the index until the table is ready, and Close stops the scan.
//
// Of duplicate keys, the table holds the first line, the one a binary
// search finds in a sorted map. In a sorted map the table answers every
// key exactly as the binary search does (the property test compares them
// on random keys); in an unsorted map it finds keys a binary search may
// miss.

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"math/bits"
	"runtime"
	"runtime/debug"
)

// maxKeyHashBytes bounds the memory of a Map's key table: maps of more
// than about 23 million lines go without one.
const maxKeyHashBytes = 256 << 20

const (
	slotOffBits = 40
	slotOffMask = 1<<slotOffBits - 1
	slotTagMask = 1<<(64-slotOffBits) - 1
)

// keyHash is the key table of one Map; it does not change once built.
type keyHash struct {
	seed  uint64 // random per table, so that no map's keys collide by design
	slots []uint64
}

// The key hash is XXH64's round and avalanche (the xxHash specification)
// over the key's 8-byte little-endian words, the last one zero-padded, the
// key length mixed in at the end. Its state after each whole word of a
// lookup key is kept, so that the hash of every wildcard key (a prefix of
// the key and a suffix) costs one or two rounds, without writing the key
// out.
const (
	xxP1 = 11400714785074694791
	xxP2 = 14029467366897019727
	xxP3 = 1609587929392839161
	xxP5 = 2870177450012600261
)

func xxRound(acc, w uint64) uint64 { return bits.RotateLeft64(acc+w*xxP2, 31) * xxP1 }

func xxAvalanche(h uint64) uint64 {
	h ^= h >> 33
	h *= xxP2
	h ^= h >> 29
	h *= xxP3
	return h ^ h>>32
}

// hashTail finishes the hash from state s (after the whole words before
// tail) over tail, of at most 16 bytes; n is the key's length.
func hashTail(s uint64, tail []byte, n int) uint64 {
	var buf [16]byte
	copy(buf[:], tail)
	if len(tail) > 0 {
		s = xxRound(s, binary.LittleEndian.Uint64(buf[:8]))
	}
	if len(tail) > 8 {
		s = xxRound(s, binary.LittleEndian.Uint64(buf[8:]))
	}
	return xxAvalanche(s ^ uint64(n)*xxP5)
}

// hash returns the hash of key k.
func (h *keyHash) hash(k []byte) uint64 {
	s := h.seed
	n := len(k)
	for len(k) > 8 {
		s = xxRound(s, binary.LittleEndian.Uint64(k))
		k = k[8:]
	}
	return hashTail(s, k, n)
}

// states sets c.states to the hash state after each whole word of c.k
// (c.states[j] after j words).
func (h *keyHash) states(c *candidates) {
	s := h.seed
	st := append(c.states[:0], s)
	for k := c.k; len(k) >= 8; k = k[8:] {
		s = xxRound(s, binary.LittleEndian.Uint64(k))
		st = append(st, s)
	}
	c.states = st
}

// hashCand returns the hash of candidate i of c, from c.states, as hash
// returns it for the candidate written out.
func (h *keyHash) hashCand(c *candidates, i int) uint64 {
	d := c.cand[i]
	if d.suf == sufStar {
		return h.hash(suffixes[sufStar])
	}
	suf := suffixes[d.suf]
	n := d.end + len(suf)
	// hash keeps the last 1 to 8 bytes as its tail: the whole words of
	// the candidate before it lie within k.
	q := d.end / 8
	if q > 0 && q*8 == n {
		q--
	}
	r := d.end - q*8 // bytes of k in the tail, 0 to 8
	var w0, w1 uint64
	if t := c.k[q*8:]; len(t) >= 8 {
		w0 = binary.LittleEndian.Uint64(t)
		if r < 8 {
			w0 &= 1<<(8*r) - 1
		}
	} else {
		var buf [8]byte
		copy(buf[:], t[:r])
		w0 = binary.LittleEndian.Uint64(buf[:])
	}
	for j, ch := range suf {
		if at := r + j; at < 8 {
			w0 |= uint64(ch) << (8 * at)
		} else {
			w1 |= uint64(ch) << (8 * (at - 8))
		}
	}
	s := c.states[q]
	if n > q*8 {
		s = xxRound(s, w0)
	}
	if n-q*8 > 8 {
		s = xxRound(s, w1)
	}
	return xxAvalanche(s ^ uint64(n)*xxP5)
}

// keyHashSlots returns the slot count for a map of lines lines (load at
// most 0.7), or 0 when the table would exceed maxKeyHashBytes.
func keyHashSlots(lines int) int {
	n := lines + lines*3/7 + 1
	if n > maxKeyHashBytes/8 {
		return 0
	}
	return n
}

// home returns the first slot and the tag of hash value hv.
func (h *keyHash) home(hv uint64) (int, uint64) {
	i, _ := bits.Mul64(hv, uint64(len(h.slots)))
	return int(i), hv & slotTagMask
}

// newKeyHash scans the map once and returns its key table, or nil when the
// map is too large for one, or when stop reports true (it is polled every
// few thousand lines).
func (m *Map) newKeyHash(stop func() bool) *keyHash {
	b := m.b
	if len(b) >= slotOffMask || m.start >= len(b) {
		return nil
	}
	n := keyHashSlots(bytes.Count(b[m.start:], []byte{'\n'}) + 1)
	if n == 0 {
		return nil
	}
	var seed [8]byte
	rand.Read(seed[:])
	h := &keyHash{seed: binary.LittleEndian.Uint64(seed[:]), slots: make([]uint64, n)}
	lines := 0
	for p := m.start; p < len(b); {
		le := m.lineEnd(p)
		if k := keyOf(b[p:le]); len(k) > 0 {
			h.insert(m, k, p)
		}
		p = le + 1
		if lines++; lines&4095 == 0 && stop != nil && stop() {
			return nil
		}
	}
	return h
}

// insert adds key k of the line starting at p, unless the table holds k
// already (a duplicate key: the first line stays).
func (h *keyHash) insert(m *Map, k []byte, p int) {
	i, tag := h.home(h.hash(k))
	for {
		s := h.slots[i]
		if s == 0 {
			h.slots[i] = tag<<slotOffBits | uint64(p+1)
			return
		}
		if s>>slotOffBits == tag {
			q := int(s&slotOffMask) - 1
			if bytes.Equal(keyOf(m.b[q:m.lineEnd(q)]), k) {
				return
			}
		}
		if i++; i == len(h.slots) {
			i = 0
		}
	}
}

// probe looks candidate ci of c up from slot i, whose content is s, with
// tag tag. It returns the start of the candidate's first line, or ok false
// when the map does not hold it. The candidate is written out only for a
// slot whose tag matches.
func (h *keyHash) probe(m *Map, c *candidates, ci int, i int, s, tag uint64) (int, bool) {
	for s != 0 {
		if s>>slotOffBits == tag {
			p := int(s&slotOffMask) - 1
			if r, ok := m.cmpAt(p, c.key(ci)); ok && r == 0 {
				return p, true
			}
		}
		if i++; i == len(h.slots) {
			i = 0
		}
		s = h.slots[i]
	}
	return 0, false
}

// batch is how many candidates of one lookup have their first slots read
// together: most lookups end within the first few wildcard keys.
const batch = 6

// lookupHashed is lookupCandidates through the key table (c.src a
// plainKey): the candidates batch at a time, most specific first, the
// first slots of a batch read before any is examined.
func (m *Map) lookupHashed(h *keyHash, c *candidates) Match {
	h.states(c)
	var home [batch]int
	var tags, first [batch]uint64
	for lo := 0; lo < c.n; {
		n := min(c.n-lo, batch)
		for j := range n {
			home[j], tags[j] = h.home(h.hashCand(c, lo+j))
		}
		for j := range n {
			first[j] = h.slots[home[j]]
		}
		for j := range n {
			if first[j] == 0 {
				continue
			}
			if p, ok := h.probe(m, c, lo+j, home[j], first[j], tags[j]); ok {
				return m.matchAt(c, p, c.key(lo+j), lo+j)
			}
		}
		lo += n
	}
	return Match{Distance: -1}
}

// startKeyHash starts the build of the key table in a goroutine of its
// own. A read of the mapping that faults (the file was truncated) marks
// the Map damaged, as it would in a lookup.
func (m *Map) startKeyHash() {
	if len(m.b) == 0 || m.err != nil {
		return
	}
	done := make(chan struct{})
	m.keysDone = done
	go func() {
		defer close(done)
		old := debug.SetPanicOnFault(true)
		defer func() {
			debug.SetPanicOnFault(old)
			if r := recover(); r != nil {
				if _, ok := r.(interface {
					runtime.Error
					Addr() uintptr
				}); !ok {
					panic(r)
				}
				m.damaged.Store(true)
			}
		}()
		if h := m.newKeyHash(m.closing.Load); h != nil {
			m.keys.Store(h)
		}
	}()
}
