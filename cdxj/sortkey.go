package cdxj

import "bytes"

// SortKey returns the part of a CDX or CDXJ data line by which a sorted
// index is ordered: its key and timestamp, the line up to its second
// space ("com,example)/ 20200101000000"; the whole line when it has no
// second space). It is a sub-slice of line.
//
// This is the module's one sort rule for index files: a file is sorted
// when the SortKey of each data line is not less, byte-wise (LC_ALL=C
// sort), than that of the data line above it. It is the part a binary
// search of a Sorted file compares (a key, or a key and the year of a
// From bound), so lines equal in it (the same capture indexed twice, a
// response and its request record) may come in any order of the rest (the
// JSON block, or the CDX fields after the timestamp). A file sorted
// whole-line, as LC_ALL=C sort writes it, is sorted by this rule too.
//
// What checks it: the CDX API of examples/archive over a file, and
// ClusterWriter (ErrUnsorted), compare the whole SortKey, since a binary
// search compares timestamps too. A build of a MementoMap over parts of an
// index (mementomap.BuildPart, Concat, the beam pipeline) depends only on
// the first field, the keys (KeyOrder): it requires them in byte-wise order,
// which every file sorted by this rule has, and lets the captures of one
// key come in any order of their timestamps (the map counts them the
// same), so it refuses a line (ErrUnsorted) only where the rule is broken
// in its keys.
func SortKey(line []byte) []byte {
	i := bytes.IndexByte(line, ' ')
	if i < 0 {
		return line
	}
	if j := bytes.IndexByte(line[i+1:], ' '); j >= 0 {
		return line[:i+1+j]
	}
	return line
}

// KeyOrder reports whether a data line with key b may follow one with key
// a in an index sorted by the module's rule (see [SortKey]): whether a
// does not sort after b byte-wise. It is the part of the rule a MementoMap
// build depends on. For keys without a byte at or below the space (every
// SURT and URL key), a file sorted by SortKey has its keys in this order.
func KeyOrder(a, b []byte) bool { return bytes.Compare(a, b) <= 0 }
