package mementomap

// The fast path of a search: one vectorized newline scan per bisection
// step and the key compared in place, 8 bytes at a time, instead of
// finding the line's end and cutting its key first. It answers exactly as
// searchRange does (keys as keyOf cuts them) and hands over to it on the
// rare lines it does not handle: blank lines, lines starting with a space
// or tab, and keys holding bytes that end a key in the file.

// plainKey reports whether key holds none of the bytes that end a key in
// a line (space, tab, CR, LF); only such keys take the fast path.
func plainKey(key []byte) bool {
	for _, c := range key {
		if c <= ' ' && (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
			return false
		}
	}
	return true
}

// cmpAt compares the key of the line starting at ls with key (a plainKey),
// as bytes.Compare(keyOf(line), key) would. ok is false when the line is
// blank or starts with a space or tab (its key is empty); the caller then
// takes the slow path.
func (m *Map) cmpAt(ls int, key []byte) (c int, ok bool) {
	b := m.b[ls:]
	if len(b) == 0 {
		return 0, false
	}
	switch b[0] {
	case ' ', '\t', '\r', '\n':
		return 0, false
	}
	i := commonPrefix(b, key) // stops at the line's end: key has no '\n'
	ended := i >= len(b)
	if !ended {
		switch b[i] {
		case ' ', '\t', '\n':
			ended = true
		case '\r':
			ended = crTail(b[i:])
		}
	}
	switch {
	case i == len(key) && ended:
		return 0, true
	case i == len(key):
		return 1, true
	case ended:
		return -1, true
	case b[i] < key[i]:
		return -1, true
	}
	return 1, true
}

// crTail reports whether b (starting at a '\r') holds only '\r' up to its
// first '\n' or its end: keyOf strips such a tail, while a '\r' followed
// by anything else is part of the key.
func crTail(b []byte) bool {
	for _, c := range b {
		switch c {
		case '\r':
		case '\n':
			return true
		default:
			return false
		}
	}
	return true
}

// searchFast is searchRange for a plainKey. lo need not be a line start:
// every line starting before lo is less than key; hi is a line start (or
// len(b)) and no line starting at or after it is less.
func (m *Map) searchFast(lo, hi int, key []byte) (int, bool) {
	lo0, hi0 := lo, hi
	for lo < hi {
		ls := m.nextLineStart(lo+(hi-lo)/2, hi)
		if ls >= hi {
			if ls = m.nextLineStart(lo, hi); ls >= hi {
				break
			}
		}
		c, ok := m.cmpAt(ls, key)
		if !ok {
			return m.searchRange(m.nextLineStart(lo0, hi0), hi0, key)
		}
		if c < 0 {
			lo = ls + 1
		} else {
			hi = ls
		}
	}
	if hi >= len(m.b) {
		return len(m.b), false
	}
	c, ok := m.cmpAt(hi, key)
	if !ok {
		return m.searchRange(m.nextLineStart(lo0, hi0), hi0, key)
	}
	return hi, c == 0
}
