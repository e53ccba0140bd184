package mementomap

import (
	"bytes"

	"github.com/mementokit/mementokit/ukvs"
)

// The layers of a key (internal/spec/MEMENTOMAP.md, "Compaction"). A key is split in two
// layers: the host layer (the part before ')' cut at each ',') and the path
// layer (the full host with its ')', then each '/'-separated segment). The
// same boundary functions drive compaction (where nodes are rolled up into
// "KEY,*" and "KEY/*") and lookup (which tries exactly those wildcard
// forms), so a roll-up can never produce a key that a lookup does not try.

// hostEnds fills ends with the end offsets (exclusive) of the host-layer
// levels of key: level 0 is the first label ("com"), level i the first i+1
// labels, and the last tracked level (max-1) takes the whole host. It
// returns the number of levels (0 for an empty host). The host is the part
// of key before the first ')', or the whole key when it has none (wildcard
// keys such as "com,example,*").
func hostEnds(key []byte, ends []int, max int) int {
	h := bytes.IndexByte(key, ')')
	if h < 0 {
		h = len(key)
	}
	if h == 0 || max <= 0 {
		return 0
	}
	n := 0
	for i := 0; i < h; i++ {
		if key[i] == ',' {
			if n == max-1 {
				break
			}
			ends[n] = i
			n++
		}
	}
	ends[n] = h
	return n + 1
}

// pathEnds fills ends with the end offsets (exclusive) of the path-layer
// levels of key: level 0 is the host with its ')' ("com,example)"), level i
// adds the i-th path segment ("com,example)/a", "com,example)/a/b"). The
// root path ("com,example)/" or "com,example)") has level 0 only; a trailing
// slash makes a level of its own ("com,example)/a/" is below
// "com,example)/a"). The last tracked level (max-1) takes the whole key,
// except with max 1, where the one level is the host. A key without ')'
// has no path layer (0 levels).
func pathEnds(key []byte, ends []int, max int) int {
	p := bytes.IndexByte(key, ')')
	if p < 0 || max <= 0 {
		return 0
	}
	p++
	ends[0] = p
	if max == 1 {
		return 1
	}
	s := p
	if s < len(key) && key[s] == '/' {
		s++
	}
	if s >= len(key) {
		return 1
	}
	n := 1
	for i := s; i < len(key); i++ {
		if key[i] == '/' {
			if n == max-1 {
				break
			}
			ends[n] = i
			n++
		}
	}
	ends[n] = len(key)
	return n + 1
}

// maxLevels bounds the depth LookupKeys considers; keys deeper than this are
// still found through their exact form and the wildcards of the first
// maxLevels levels, which covers every depth compaction accepts.
const maxLevels = 64

// AppendLookupKeys appends to dst the keys to try for the HxPx key k, most
// specific first (internal/spec/MEMENTOMAP.md, "Keys"): k itself; for a root key the other
// root form ("com,example)" after "com,example)/", which is what the
// reference tool writes, and the other way round); "P/*" for the full key and
// every shorter path prefix P down to the host ("com,example)/a/b/*",
// "com,example)/a/*", "com,example)/*"); "H,*" for the full host and every
// shorter host prefix ("com,example,*", "com,*"); and finally "*". Commas
// inside the path are path characters. A query (anything from the first
// '?') is cut first. It returns the extended slice.
func AppendLookupKeys(dst []string, k string) []string {
	var c candidates
	c.build([]byte(k))
	for i := range c.n {
		dst = append(dst, string(c.key(i)))
	}
	return dst
}

// candidates holds the lookup keys of one HxPx key as prefixes of the key
// with a suffix ("/*", ",*", "/" or none), written out only when a lookup
// reads one, so that building them copies nothing and a lookup allocates
// nothing once the buffers have grown.
type candidates struct {
	src  []byte // a copy of the key looked up
	k    []byte // the key the candidates are prefixes of (query cut)
	cand []candidate
	buf  []byte // the last candidate key written out
	n    int
	ends [maxLevels]int

	states []uint64               // key table hash states over k (keyHash.states)
	keys   [keySlots]keyEntry     // wildcard keys recently returned, by line
	values [valueSlots]valueEntry // frequency columns recently returned
	rec    ukvs.Record            // the line checked last (Map.checkLine)
	err    error                  // the bad line a lookup ended on (ErrBadLine)
}

// candidate is k[:end] followed by suffixes[suf].
type candidate struct {
	end int
	suf uint8
}

// Candidate suffixes; sufStar stands for the key "*" alone (end 0).
const (
	sufNone = iota
	sufSlashStar
	sufCommaStar
	sufSlash
	sufStar
)

var suffixes = [...][]byte{sufNone: nil, sufSlashStar: []byte("/*"), sufCommaStar: []byte(",*"), sufSlash: []byte("/"), sufStar: []byte("*")}

// key returns candidate i. A key with a suffix is written into c.buf and
// valid until the next call of key; key(0) (the key itself, or "*") never
// is, so it stays valid while the others are read.
func (c *candidates) key(i int) []byte {
	d := c.cand[i]
	if d.suf == sufNone {
		return c.k[:d.end:d.end]
	}
	if d.suf == sufStar {
		return suffixes[sufStar][:1:1]
	}
	c.buf = append(append(c.buf[:0], c.k[:d.end]...), suffixes[d.suf]...)
	return c.buf
}

// prefixWith returns commonPrefix(c.key(i), c.key(0)) without writing the
// key out.
func (c *candidates) prefixWith0(i int) int {
	d, d0 := c.cand[i], c.cand[0]
	if d0.suf == sufStar || d.suf == sufStar {
		return commonPrefix(c.key(i), c.key(0))
	}
	if d.end > d0.end {
		return commonPrefix(c.key(i), c.key(0))
	}
	return d.end + commonPrefix(suffixes[d.suf], c.k[d.end:d0.end])
}

// candLen is the length of candidate d.
func candLen(d candidate) int { return d.end + len(suffixes[d.suf]) }

// candEqual reports whether candidates a and b are the same key.
func (c *candidates) candEqual(a, b candidate) bool {
	if candLen(a) != candLen(b) {
		return false
	}
	for j := range candLen(a) {
		if c.byteAt(a, j) != c.byteAt(b, j) {
			return false
		}
	}
	return true
}

func (c *candidates) byteAt(d candidate, j int) byte {
	if j < d.end {
		return c.k[j]
	}
	return suffixes[d.suf][j-d.end]
}

func (c *candidates) add(end int, suf uint8) {
	d := candidate{end, suf}
	if c.n > 0 && c.candEqual(d, c.cand[c.n-1]) {
		return // the same key twice in a row (wildcard input)
	}
	c.cand = append(c.cand, d)
	c.n++
}

func (c *candidates) build(k []byte) {
	c.cand = c.cand[:0]
	c.n = 0
	if i := bytes.IndexByte(k, '?'); i >= 0 {
		k = k[:i]
	}
	c.k = k
	if len(k) == 0 || (len(k) == 1 && k[0] == '*') {
		c.add(0, sufStar)
		return
	}
	c.add(len(k), sufNone)
	pn := pathEnds(k, c.ends[:], maxLevels)
	if pn == 1 {
		if len(k) == c.ends[0]+1 && k[len(k)-1] == '/' {
			c.add(len(k)-1, sufNone)
		} else if len(k) == c.ends[0] {
			c.add(len(k), sufSlash)
		}
	}
	for j := pn - 1; j >= 0; j-- {
		c.add(c.ends[j], sufSlashStar)
	}
	hn := hostEnds(k, c.ends[:], maxLevels)
	for j := hn - 1; j >= 0; j-- {
		c.add(c.ends[j], sufCommaStar)
	}
	c.add(0, sufStar)
}
