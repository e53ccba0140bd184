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
