package mementomap

// The key table: a hash table of every key of a map, built once a Map is
// in steady use. Each lookup key then costs one hash and one probe of the
// table (a cache miss) instead of a search through the block index and a
// line table, and the mapped file is read only for the line that matches
// (or, about once in 8 million probes, for a line whose tag collides).
// The wildcard keys of a lookup whose exact key is absent are hashed
// together and their first fingerprints read before any is examined, so
// that their cache misses overlap.
//
// A slot is 8 bytes: a bit that says its line passed the line check
// (Map.checkLine, set by the first lookup that ends on the line, so that
// later ones skip the check), 23 bits of the key's hash (the tag) and the
// line's offset plus one (0 marks an empty slot), in 40 bits. Beside the
// slots, one byte per slot holds 8 other bits of its key's hash (the
// fingerprint, never 0; 0 marks an empty slot): a probe walks the
// fingerprints, an eighth the size of the slots and so more often in a
// cache, and reads a slot only where its fingerprint matches (1 in 255 for
// a key the map does not hold). Most keys a lookup tries are absent (the
// wildcards more specific than the one that decides), so most probes read
// nothing else. Open addressing with linear probing at a load of at most
// 0.7: about 13 bytes per map line, at most maxKeyHashBytes; a larger
// map, or one of 2^40 bytes or
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
	"sync/atomic"
)

// maxKeyHashBytes bounds the memory of a Map's key table: maps of more
// than about 20 million lines go without one.
const maxKeyHashBytes = 256 << 20

const (
	slotOffBits = 40
	slotOffMask = 1<<slotOffBits - 1
	slotTagMask = 1<<(63-slotOffBits) - 1
	slotChecked = 1 << 63 // the slot's line passed the line check
)

// keyHash is the key table of one Map. Once built, its slots change only
// by gaining slotChecked.
type keyHash struct {
	seed  uint64 // random per table, so that no map's keys collide by design
	slots []atomic.Uint64
	fps   []uint8 // the fingerprint of each slot's key, 0 for an empty slot
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
	if n > maxKeyHashBytes/9 {
		return 0
	}
	return n
}

// home returns the first slot, the tag and the fingerprint of hash value
// hv: the slot from its high bits, the tag from its low 23 and the
// fingerprint from the 8 above them.
func (h *keyHash) home(hv uint64) (int, uint64, uint8) {
	i, _ := bits.Mul64(hv, uint64(len(h.slots)))
	fp := uint8(hv >> 23)
	if fp == 0 {
		fp = 1
	}
	return int(i), hv & slotTagMask, fp
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
	h := &keyHash{seed: binary.LittleEndian.Uint64(seed[:]), slots: make([]atomic.Uint64, n), fps: make([]uint8, n)}
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
	i, tag, fp := h.home(h.hash(k))
	for {
		s := h.slots[i].Load()
		if s == 0 {
			h.slots[i].Store(tag<<slotOffBits | uint64(p+1))
			h.fps[i] = fp
			return
		}
		if h.fps[i] == fp && s>>slotOffBits&slotTagMask == tag {
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

// probe looks candidate ci of c up from slot i, whose fingerprint is f,
// for fingerprint fp and tag tag. It returns the slot of the candidate's
// first line and its content, or ok false when the map does not hold it.
// A slot is read only where the fingerprint matches, and its line only
// where the tag does too; the candidate is compared with the line without
// being written out.
func (h *keyHash) probe(m *Map, c *candidates, ci int, i int, f, fp uint8, tag uint64) (int, uint64, bool) {
	for f != 0 {
		if f == fp {
			s := h.slots[i].Load()
			if s>>slotOffBits&slotTagMask == tag && m.candAt(int(s&slotOffMask)-1, c, ci) {
				return i, s, true
			}
		}
		if i++; i == len(h.fps) {
			i = 0
		}
		f = h.fps[i]
	}
	return 0, 0, false
}

// candAt reports whether the line starting at p has candidate ci of c as
// its key: cmpAt(p, c.key(ci)) == 0, ok, without writing the key out.
func (m *Map) candAt(p int, c *candidates, ci int) bool {
	d := c.cand[ci]
	var pre, suf []byte
	if d.suf == sufStar {
		suf = suffixes[sufStar]
	} else {
		pre, suf = c.k[:d.end], suffixes[d.suf]
	}
	b := m.b[p:]
	n := len(pre) + len(suf)
	if len(b) < n || len(pre) == 0 && len(suf) == 0 {
		return false
	}
	if commonPrefix(b, pre) != len(pre) || commonPrefix(b[len(pre):], suf) != len(suf) {
		return false
	}
	if len(b) == n {
		return true
	}
	switch b[n] {
	case ' ', '\t', '\n':
		return true
	case '\r':
		return crTail(b[n:])
	}
	return false
}

// batch is how many candidates of one lookup have their first
// fingerprints read together: most lookups end within the first few
// wildcard keys.
const batch = 6

// lookupHashed is lookupCandidates through the key table (c.src a
// plainKey): the candidates batch at a time, most specific first, the
// first fingerprints of a batch read before any is examined.
func (m *Map) lookupHashed(h *keyHash, c *candidates) Match {
	h.states(c)
	var home [batch]int
	var tags [batch]uint64
	var fps, first [batch]uint8
	for lo := 0; lo < c.n; {
		n := min(c.n-lo, batch)
		for j := range n {
			home[j], tags[j], fps[j] = h.home(h.hashCand(c, lo+j))
		}
		for j := range n {
			first[j] = h.fps[home[j]]
		}
		for j := range n {
			if first[j] == 0 {
				continue
			}
			if i, s, ok := h.probe(m, c, lo+j, home[j], first[j], fps[j], tags[j]); ok {
				checked := s&slotChecked != 0
				res := m.matchAt(c, int(s&slotOffMask)-1, c.key(lo+j), lo+j, checked)
				if !checked && c.err == nil && m.lay.timeKey == "" {
					h.slots[i].Or(slotChecked)
				}
				return res
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
	m.keysDone = m.readInBackground(func() {
		if h := m.newKeyHash(m.closing.Load); h != nil {
			m.keys.Store(h)
		}
	})
}
