package columnar

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"io"
	"math/bits"
	"slices"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding/delta"
	"github.com/parquet-go/parquet-go/encoding/rle"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// This file writes the capture table's column chunks page by page, with
// the encodings that parquet-go's readers (and every other) decode: a
// dictionary column's value is looked up in its dictionary only when it
// differs from the previous row's (the input is in key order, so host,
// file and media type columns repeat over runs of rows), values are kept
// in typed slices per page, and a page is encoded and compressed once,
// when full. Pages use the version 2 layout: definition levels
// (RLE/bit-packed hybrid) uncompressed, then the compressed values.

var (
	deltaInts   delta.BinaryPackedEncoding
	levelsRLE   = rle.Encoding{BitWidth: 1}
	thriftProto thrift.CompactProtocol
)

// pageRows bounds the rows of a page of a dictionary or fixed-width
// column; a column of byte arrays ends its page at pageSize bytes.
const pageRows = 1 << 15

// chunk is the state common to every column: the pages of the column chunk
// of the row group being written (in sink) and their index entries.
type chunk struct {
	name     string
	typ      format.Type
	optional bool
	codec    compress.Codec
	bounds   bool // min/max in the statistics and the column index
	encoding format.Encoding

	sink pageSink

	// The row group's chunk so far.
	numValues    int64 // rows, nulls included
	nullCount    int64
	uncompressed int64 // page bytes before compression, headers included
	compressed   int64 // page bytes as stored, headers included
	dataPages    int32
	locations    []format.PageLocation // Offset relative to the first data page
	ci           format.ColumnIndex
	min, max     []byte // chunk bounds, plain-encoded
	hasBounds    bool

	// The page being filled.
	defRuns   []uint32 // definition levels (optional columns), as runs: count<<1 | level
	defs      []byte   // the levels one by one, when the runs are short
	pageRows  int
	pageNulls int

	// Scratch buffers.
	enc, comp []byte

	// errp holds the first error of a page written by add.
	errp *error
}

// keep records err in *c.errp unless it holds one.
func (c *chunk) keep(err error) {
	if err != nil && *c.errp == nil {
		*c.errp = err
	}
}

// pageSink holds the encoded pages of one column chunk until its row group
// is written.
type pageSink interface {
	io.Writer
	// copyTo writes everything written since the last reset to w.
	copyTo(w io.Writer) (int64, error)
	reset() error
	close() error
}

// memSink is a pageSink in memory.
type memSink struct{ bytes.Buffer }

func (m *memSink) copyTo(w io.Writer) (int64, error) {
	n, err := w.Write(m.Bytes())
	return int64(n), err
}
func (m *memSink) reset() error { m.Reset(); return nil }
func (m *memSink) close() error { m.Buffer = bytes.Buffer{}; return nil }

// header encodes page headers.
type headerEncoder struct {
	buf bytes.Buffer
	enc *thrift.Encoder
}

func newHeaderEncoder() *headerEncoder {
	h := &headerEncoder{}
	h.enc = thrift.NewEncoder(thriftProto.NewWriter(&h.buf))
	return h
}

func (h *headerEncoder) encode(v any) ([]byte, error) {
	h.buf.Reset()
	if err := h.enc.Encode(v); err != nil {
		return nil, err
	}
	return h.buf.Bytes(), nil
}

// null records a NULL in the page of an optional column.
func (c *chunk) null() {
	c.level(0)
	c.pageNulls++
	c.pageRows++
}

// present records a value in the page of a column.
func (c *chunk) present() {
	if c.optional {
		c.level(1)
	}
	c.pageRows++
}

// level adds a definition level to the runs.
func (c *chunk) level(v uint32) {
	if n := len(c.defRuns); n > 0 && c.defRuns[n-1]&1 == v {
		c.defRuns[n-1] += 2
		return
	}
	c.defRuns = append(c.defRuns, 2|v)
}

// encodeLevels encodes the page's definition levels (RLE/bit-packed
// hybrid, width 1): runs of 8 or more on average as RLE runs, shorter ones
// bit-packed.
func (c *chunk) encodeLevels() ([]byte, error) {
	if 8*len(c.defRuns) <= c.pageRows {
		b := c.enc[:0]
		for _, r := range c.defRuns {
			b = binary.AppendUvarint(b, uint64(r>>1)<<1)
			b = append(b, byte(r&1))
		}
		c.enc = b
		return b, nil
	}
	d := c.defs[:0]
	for _, r := range c.defRuns {
		for range r >> 1 {
			d = append(d, byte(r&1))
		}
	}
	c.defs = d
	var err error
	c.enc, err = levelsRLE.EncodeLevels(c.enc[:0], d)
	return c.enc, err
}

// appendRuns appends indexes given as runs (index<<32 | count) in the
// RLE/bit-packed hybrid at width bits: as RLE runs when they average 8 or
// more, else bit-packed through *expanded and *scratch.
func appendRuns(dst []byte, runs []uint64, rows, width int, expanded *[]int32, scratch *[]byte) ([]byte, error) {
	if 8*len(runs) <= rows {
		nb := (width + 7) / 8
		for _, r := range runs {
			dst = binary.AppendUvarint(dst, (r&0xffffffff)<<1)
			v := uint32(r >> 32)
			for i := range nb {
				dst = append(dst, byte(v>>(8*i)))
			}
		}
		return dst, nil
	}
	x := (*expanded)[:0]
	for _, r := range runs {
		v := int32(r >> 32)
		for range r & 0xffffffff {
			x = append(x, v)
		}
	}
	*expanded = x
	return rleAppendInt32(dst, x, width, scratch)
}

// writePage compresses values (already encoded) and writes the page with
// its levels to the sink; lo and hi are the page's bounds (plain-encoded),
// nil for a page of NULLs or a column without bounds.
func (c *chunk) writePage(h *headerEncoder, values, lo, hi []byte) error {
	if c.pageRows == 0 {
		return nil
	}
	var levels []byte
	if c.optional {
		var err error
		if levels, err = c.encodeLevels(); err != nil {
			return err
		}
	}
	body := values
	compressed := false
	if c.codec.CompressionCodec() != format.Uncompressed {
		var err error
		if c.comp, err = c.codec.Encode(c.comp[:0], values); err != nil {
			return fmt.Errorf("compressing a page of %s: %w", c.name, err)
		}
		body, compressed = c.comp, true
	}
	ph := format.PageHeader{
		Type:                 format.DataPageV2,
		UncompressedPageSize: int32(len(levels) + len(values)),
		CompressedPageSize:   int32(len(levels) + len(body)),
		DataPageHeaderV2: thrift.New(format.DataPageHeaderV2{
			NumValues:                  int32(c.pageRows),
			NumNulls:                   int32(c.pageNulls),
			NumRows:                    int32(c.pageRows),
			Encoding:                   c.encoding,
			DefinitionLevelsByteLength: int32(len(levels)),
			IsCompressed:               thrift.New(compressed),
		}),
	}
	head, err := h.encode(&ph)
	if err != nil {
		return err
	}
	size := int64(len(head) + len(levels) + len(body))
	c.locations = append(c.locations, format.PageLocation{
		Offset:             c.compressed, // made absolute when the chunk is written
		CompressedPageSize: int32(size),
		FirstRowIndex:      c.numValues,
	})
	for _, b := range [][]byte{head, levels, body} {
		if _, err := c.sink.Write(b); err != nil {
			return err
		}
	}
	c.compressed += size
	c.uncompressed += int64(len(head) + len(levels) + len(values))
	c.dataPages++
	if c.bounds {
		c.ci.NullPages = append(c.ci.NullPages, lo == nil)
		c.ci.MinValues = append(c.ci.MinValues, slices.Clone(lo))
		c.ci.MaxValues = append(c.ci.MaxValues, slices.Clone(hi))
		c.ci.NullCounts = append(c.ci.NullCounts, int64(c.pageNulls))
	}
	c.numValues += int64(c.pageRows)
	c.nullCount += int64(c.pageNulls)
	c.pageRows, c.pageNulls, c.defRuns = 0, 0, c.defRuns[:0]
	return nil
}

// chunkBounds widens the chunk's bounds by a page's, compared by less.
func (c *chunk) chunkBounds(lo, hi []byte, less func(a, b []byte) bool) {
	if lo == nil {
		return
	}
	if !c.hasBounds || less(lo, c.min) {
		c.min = append(c.min[:0], lo...)
	}
	if !c.hasBounds || less(c.max, hi) {
		c.max = append(c.max[:0], hi...)
	}
	c.hasBounds = true
}

func bytesLess(a, b []byte) bool { return bytes.Compare(a, b) < 0 }

func int32Less(a, b []byte) bool {
	return int32(binary.LittleEndian.Uint32(a)) < int32(binary.LittleEndian.Uint32(b))
}

func int64Less(a, b []byte) bool {
	return int64(binary.LittleEndian.Uint64(a)) < int64(binary.LittleEndian.Uint64(b))
}

// resetChunk starts the next row group's chunk.
func (c *chunk) resetChunk() error {
	c.numValues, c.nullCount, c.uncompressed, c.compressed, c.dataPages = 0, 0, 0, 0, 0
	c.locations = c.locations[:0]
	c.ci = format.ColumnIndex{}
	c.min, c.max, c.hasBounds = c.min[:0], c.max[:0], false
	return c.sink.reset()
}

// column is one column's writer.
type column interface {
	base() *chunk
	// flush writes the page being filled.
	flush(h *headerEncoder) error
	// dictionaryPage returns the encoded dictionary (PLAIN) and its
	// length, or nil for a column without one.
	dictionaryPage() ([]byte, int)
	// resetDictionary starts the next row group's dictionary.
	resetDictionary()
}

// bytesColumn is a column of byte arrays, PLAIN or DELTA_BYTE_ARRAY.
type bytesColumn struct {
	chunk
	values  []byte
	offsets []uint32 // DELTA_BYTE_ARRAY: the values' ends, after a leading 0
	lo, hi  [2]uint32
	has     bool
	venc    []byte
	// DELTA_BYTE_ARRAY scratch: prefix and suffix lengths, their
	// encodings, the suffixes.
	prefixes, suffixes []int32
	pEnc, sEnc, sfx    []byte
}

func newBytesColumn(c chunk) *bytesColumn {
	return &bytesColumn{chunk: c, offsets: []uint32{0}}
}

func (c *bytesColumn) base() *chunk { return &c.chunk }

func (c *bytesColumn) add(h *headerEncoder, s string) {
	if s == "" && c.optional {
		c.null()
	} else {
		start := uint32(len(c.values))
		if c.encoding == format.Plain {
			c.values = binary.LittleEndian.AppendUint32(c.values, uint32(len(s)))
			start += 4
		}
		c.values = append(c.values, s...)
		end := uint32(len(c.values))
		if c.encoding != format.Plain {
			c.offsets = append(c.offsets, end)
		}
		if c.bounds {
			v := c.values[start:end]
			if !c.has {
				c.lo, c.hi, c.has = [2]uint32{start, end}, [2]uint32{start, end}, true
			} else if string(v) < string(c.values[c.lo[0]:c.lo[1]]) {
				c.lo = [2]uint32{start, end}
			} else if string(v) > string(c.values[c.hi[0]:c.hi[1]]) {
				c.hi = [2]uint32{start, end}
			}
		}
		c.present()
	}
	if len(c.values) >= pageSize || c.pageRows >= 4*pageRows {
		c.keep(c.flush(h))
	}
}

func (c *bytesColumn) flush(h *headerEncoder) error {
	if c.pageRows == 0 {
		return nil
	}
	values := c.values
	if c.encoding != format.Plain {
		var err error
		if values, err = c.encodeDelta(); err != nil {
			return err
		}
	}
	var lo, hi []byte
	if c.has {
		lo, hi = c.values[c.lo[0]:c.lo[1]], c.values[c.hi[0]:c.hi[1]]
		c.chunkBounds(lo, hi, bytesLess)
	}
	if err := c.writePage(h, values, lo, hi); err != nil {
		return err
	}
	c.values, c.offsets, c.has = c.values[:0], c.offsets[:1], false
	return nil
}

// encodeDelta encodes the page's values DELTA_BYTE_ARRAY: the lengths of
// the prefixes each value shares with the one before and of the rest
// (DELTA_BINARY_PACKED), then the rests.
func (c *bytesColumn) encodeDelta() ([]byte, error) {
	p, n, sfx := c.prefixes[:0], c.suffixes[:0], c.sfx[:0]
	var prev []byte
	for i := 1; i < len(c.offsets); i++ {
		v := c.values[c.offsets[i-1]:c.offsets[i]]
		k := commonPrefix(prev, v)
		p = append(p, int32(k))
		n = append(n, int32(len(v)-k))
		sfx = append(sfx, v[k:]...)
		prev = v
	}
	c.prefixes, c.suffixes, c.sfx = p, n, sfx
	var err error
	if c.pEnc, err = deltaInts.EncodeInt32(c.pEnc[:0], p); err != nil {
		return nil, err
	}
	if c.sEnc, err = deltaInts.EncodeInt32(c.sEnc[:0], n); err != nil {
		return nil, err
	}
	c.venc = append(append(append(c.venc[:0], c.pEnc...), c.sEnc...), sfx...)
	return c.venc, nil
}

// commonPrefix returns the length of the longest common prefix of a and
// b, comparing 8 bytes at a time.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for ; i+8 <= n; i += 8 {
		if x := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:]); x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
	}
	for ; i < n && a[i] == b[i]; i++ {
	}
	return i
}

func (c *bytesColumn) dictionaryPage() ([]byte, int) { return nil, 0 }
func (c *bytesColumn) resetDictionary()              {}

// dictColumn is a dictionary-encoded column of strings (RLE_DICTIONARY
// pages, a PLAIN dictionary page per row group). The dictionary is its
// PLAIN encoding (plain, value i at offsets[i]) and an open-addressing
// table of hashes and indexes: a look-up touches one 8-byte slot and the
// bytes of one value, where a map of strings touches its groups and the
// string headers too.
type dictColumn struct {
	chunk
	plain   []byte   // the dictionary, PLAIN-encoded
	offsets []uint32 // value i is plain[offsets[i]+4:] for its length
	table   []uint64 // hash<<32 | index+1; 0 is an empty slot
	runs    []uint64 // the page's values, as runs: index<<32 | count
	indexes []int32  // the page's values one by one, when the runs are short
	last    string
	lastIdx int32
	hasLast bool
	lo, hi  int32
	has     bool
	enc2    []byte
	scratch []byte
}

// hashSeed seeds the dictionaries' hashes.
var hashSeed = maphash.MakeSeed()

func newDictColumn(c chunk) *dictColumn {
	return &dictColumn{chunk: c, table: make([]uint64, 1024)}
}

func (c *dictColumn) base() *chunk { return &c.chunk }

// value returns dictionary value i, viewing plain.
func (c *dictColumn) value(i int32) string {
	off := c.offsets[i]
	n := binary.LittleEndian.Uint32(c.plain[off:])
	return b2s(c.plain[off+4 : off+4+n])
}

// lookup returns the index of s, adding it to the dictionary.
func (c *dictColumn) lookup(s string) int32 {
	h := maphash.String(hashSeed, s)
	tag := h >> 32
	mask := uint64(len(c.table) - 1)
	for p := h & mask; ; p = (p + 1) & mask {
		e := c.table[p]
		if e == 0 {
			i := int32(len(c.offsets))
			c.table[p] = tag<<32 | uint64(i+1)
			c.offsets = append(c.offsets, uint32(len(c.plain)))
			c.plain = binary.LittleEndian.AppendUint32(c.plain, uint32(len(s)))
			c.plain = append(c.plain, s...)
			if 2*len(c.offsets) > len(c.table) {
				c.grow()
			}
			return i
		}
		if e>>32 == tag && c.value(int32(e&0xffffffff)-1) == s {
			return int32(e&0xffffffff) - 1
		}
	}
}

// grow doubles the table.
func (c *dictColumn) grow() {
	t := make([]uint64, 2*len(c.table))
	mask := uint64(len(t) - 1)
	for i := range c.offsets {
		h := maphash.String(hashSeed, c.value(int32(i)))
		p := h & mask
		for t[p] != 0 {
			p = (p + 1) & mask
		}
		t[p] = h>>32<<32 | uint64(i+1)
	}
	c.table = t
}

func (c *dictColumn) add(h *headerEncoder, s string) {
	if s == "" && c.optional {
		c.null()
	} else {
		if !c.hasLast || s != c.last {
			i := c.lookup(s)
			c.last, c.lastIdx, c.hasLast = c.value(i), i, true
			if c.bounds {
				switch {
				case !c.has:
					c.lo, c.hi, c.has = i, i, true
				case s < c.value(c.lo):
					c.lo = i
				case s > c.value(c.hi):
					c.hi = i
				}
			}
		}
		if n := len(c.runs); n > 0 && uint32(c.runs[n-1]>>32) == uint32(c.lastIdx) {
			c.runs[n-1]++
		} else {
			c.runs = append(c.runs, uint64(c.lastIdx)<<32|1)
		}
		c.present()
	}
	if c.pageRows >= pageRows {
		c.keep(c.flush(h))
	}
}

func (c *dictColumn) flush(h *headerEncoder) error {
	if c.pageRows == 0 {
		return nil
	}
	width := dictWidth(len(c.offsets))
	var err error
	c.enc2 = append(c.enc2[:0], byte(width))
	if c.enc2, err = appendRuns(c.enc2, c.runs, c.pageRows-c.pageNulls, width, &c.indexes, &c.scratch); err != nil {
		return err
	}
	var lo, hi []byte
	if c.has {
		lo, hi = []byte(c.value(c.lo)), []byte(c.value(c.hi))
		c.chunkBounds(lo, hi, bytesLess)
	}
	if err := c.writePage(h, c.enc2, lo, hi); err != nil {
		return err
	}
	c.runs, c.has = c.runs[:0], false
	return nil
}

// dictWidth is the bit width of the indexes into a dictionary of n values
// (at least 1).
func dictWidth(n int) int {
	if n <= 2 {
		return 1
	}
	return bits.Len32(uint32(n - 1))
}

// rleAppendInt32 appends the RLE/bit-packed hybrid encoding of v at width
// bits to dst, using *scratch.
func rleAppendInt32(dst []byte, v []int32, width int, scratch *[]byte) ([]byte, error) {
	e := rle.Encoding{BitWidth: width}
	out, err := e.EncodeInt32((*scratch)[:0], v)
	*scratch = out
	if err != nil {
		return dst, err
	}
	return append(dst, out...), nil
}

func (c *dictColumn) dictionaryPage() ([]byte, int) { return c.plain, len(c.offsets) }

func (c *dictColumn) resetDictionary() {
	clear(c.table)
	c.plain, c.offsets, c.hasLast, c.last = c.plain[:0], c.offsets[:0], false, ""
}

// int32DictColumn is a dictionary-encoded INT32 column (fetch_status,
// fetch_time_digits), required.
type int32DictColumn struct {
	chunk
	dict    map[int32]int32
	values  []int32
	indexes []int32
	last    int32
	lastIdx int32
	hasLast bool
	lo, hi  int32 // values
	has     bool
	enc2    []byte
	scratch []byte
}

func newInt32DictColumn(c chunk) *int32DictColumn {
	return &int32DictColumn{chunk: c, dict: map[int32]int32{}}
}

func (c *int32DictColumn) base() *chunk { return &c.chunk }

func (c *int32DictColumn) add(h *headerEncoder, v int32) {
	if !c.hasLast || v != c.last {
		i, ok := c.dict[v]
		if !ok {
			i = int32(len(c.values))
			c.dict[v] = i
			c.values = append(c.values, v)
		}
		c.last, c.lastIdx, c.hasLast = v, i, true
	}
	if c.bounds {
		if !c.has {
			c.lo, c.hi, c.has = v, v, true
		} else {
			c.lo, c.hi = min(c.lo, v), max(c.hi, v)
		}
	}
	c.indexes = append(c.indexes, c.lastIdx)
	c.present()
	if c.pageRows >= pageRows {
		c.keep(c.flush(h))
	}
}

func (c *int32DictColumn) flush(h *headerEncoder) error {
	if c.pageRows == 0 {
		return nil
	}
	width := dictWidth(len(c.values))
	var err error
	c.enc2 = append(c.enc2[:0], byte(width))
	if c.enc2, err = rleAppendInt32(c.enc2, c.indexes, width, &c.scratch); err != nil {
		return err
	}
	var lo, hi []byte
	if c.has {
		lo = binary.LittleEndian.AppendUint32(nil, uint32(c.lo))
		hi = binary.LittleEndian.AppendUint32(nil, uint32(c.hi))
		c.chunkBounds(lo, hi, int32Less)
	}
	if err := c.writePage(h, c.enc2, lo, hi); err != nil {
		return err
	}
	c.indexes, c.has = c.indexes[:0], false
	return nil
}

func (c *int32DictColumn) dictionaryPage() ([]byte, int) {
	b := make([]byte, 0, 4*len(c.values))
	for _, v := range c.values {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	return b, len(c.values)
}

func (c *int32DictColumn) resetDictionary() {
	clear(c.dict)
	c.values, c.hasLast = c.values[:0], false
}

// int32Column is a PLAIN INT32 column whose 0 is NULL (url_port).
type int32Column struct {
	chunk
	values []byte
}

func (c *int32Column) base() *chunk { return &c.chunk }

func (c *int32Column) add(h *headerEncoder, v int32) {
	if v == 0 && c.optional {
		c.null()
	} else {
		c.values = binary.LittleEndian.AppendUint32(c.values, uint32(v))
		c.present()
	}
	if c.pageRows >= pageRows {
		c.keep(c.flush(h))
	}
}

func (c *int32Column) flush(h *headerEncoder) error {
	if err := c.writePage(h, c.values, nil, nil); err != nil {
		return err
	}
	c.values = c.values[:0]
	return nil
}

func (c *int32Column) dictionaryPage() ([]byte, int) { return nil, 0 }
func (c *int32Column) resetDictionary()              {}

// int64Column is a required INT64 column, DELTA_BINARY_PACKED.
type int64Column struct {
	chunk
	values []int64
	enc2   []byte
}

func (c *int64Column) base() *chunk { return &c.chunk }

func (c *int64Column) add(h *headerEncoder, v int64) {
	c.values = append(c.values, v)
	c.pageRows++
	if c.pageRows >= pageSize/8 {
		c.keep(c.flush(h))
	}
}

func (c *int64Column) flush(h *headerEncoder) error {
	if c.pageRows == 0 {
		return nil
	}
	var err error
	if c.enc2, err = deltaInts.EncodeInt64(c.enc2[:0], c.values); err != nil {
		return err
	}
	var lo, hi []byte
	if c.bounds {
		l, u := slices.Min(c.values), slices.Max(c.values)
		lo = binary.LittleEndian.AppendUint64(nil, uint64(l))
		hi = binary.LittleEndian.AppendUint64(nil, uint64(u))
		c.chunkBounds(lo, hi, int64Less)
	}
	if err := c.writePage(h, c.enc2, lo, hi); err != nil {
		return err
	}
	c.values = c.values[:0]
	return nil
}

func (c *int64Column) dictionaryPage() ([]byte, int) { return nil, 0 }
func (c *int64Column) resetDictionary()              {}

// boolColumn is a required BOOLEAN column, PLAIN (bit-packed).
type boolColumn struct {
	chunk
	values []byte
}

func (c *boolColumn) base() *chunk { return &c.chunk }

func (c *boolColumn) add(h *headerEncoder, v bool) {
	if c.pageRows%8 == 0 {
		c.values = append(c.values, 0)
	}
	if v {
		c.values[len(c.values)-1] |= 1 << (c.pageRows % 8)
	}
	c.pageRows++
	if c.pageRows >= 4*pageRows {
		c.keep(c.flush(h))
	}
}

func (c *boolColumn) flush(h *headerEncoder) error {
	if err := c.writePage(h, c.values, nil, nil); err != nil {
		return err
	}
	c.values = c.values[:0]
	return nil
}

func (c *boolColumn) dictionaryPage() ([]byte, int) { return nil, 0 }
func (c *boolColumn) resetDictionary()              {}

// template is what a file's footer takes from the schema: its elements
// and column orders, the key-value metadata and the writer's name, as
// parquet-go writes them for the same options.
type template struct {
	schema       []format.SchemaElement
	columnOrders []format.ColumnOrder
	kv           []format.KeyValue
	createdBy    string
}

// footerTemplate writes an empty file with parquet-go and reads its
// footer.
func footerTemplate(s *parquet.Schema, opts ...parquet.WriterOption) (*template, error) {
	var buf bytes.Buffer
	w := parquet.NewWriter(&buf, append([]parquet.WriterOption{s}, opts...)...)
	if err := w.Close(); err != nil {
		return nil, err
	}
	f, err := parquet.OpenFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		return nil, err
	}
	m := f.Metadata()
	return &template{schema: m.Schema, columnOrders: m.ColumnOrders, kv: m.KeyValueMetadata, createdBy: m.CreatedBy}, nil
}

// fileWriter writes the row groups of columns and the footer to an
// io.Writer.
type fileWriter struct {
	out       *countingWriter
	tmpl      *template
	cols      []column
	h         *headerEncoder
	rowGroups []format.RowGroup
	indexes   [][]format.ColumnIndex // by row group, bounds columns only
	offsets   [][]format.OffsetIndex
	started   bool
}

// countingWriter buffers writes to w and counts the bytes.
type countingWriter struct {
	w   io.Writer
	buf []byte
	n   int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	if len(c.buf)+len(p) > cap(c.buf) {
		if err := c.flush(); err != nil {
			return 0, err
		}
		if len(p) >= cap(c.buf) {
			return c.w.Write(p)
		}
	}
	c.buf = append(c.buf, p...)
	return len(p), nil
}

func (c *countingWriter) flush() error {
	if len(c.buf) == 0 {
		return nil
	}
	_, err := c.w.Write(c.buf)
	c.buf = c.buf[:0]
	return err
}

// ReadFrom copies r to w after the buffered bytes, so that a file read
// into a file is copied by the kernel (copy_file_range(2)).
func (c *countingWriter) ReadFrom(r io.Reader) (int64, error) {
	if err := c.flush(); err != nil {
		return 0, err
	}
	n, err := io.Copy(c.w, r)
	c.n += n
	return n, err
}

// writeRowGroup flushes every column's page and writes the row group.
func (fw *fileWriter) writeRowGroup(rows int64) error {
	if rows == 0 {
		return nil
	}
	if !fw.started {
		if _, err := fw.out.Write([]byte("PAR1")); err != nil {
			return err
		}
		fw.started = true
	}
	rg := format.RowGroup{NumRows: rows, Ordinal: int16(len(fw.rowGroups)), FileOffset: fw.out.n}
	var cis []format.ColumnIndex
	ois := make([]format.OffsetIndex, 0, len(fw.cols))
	for _, col := range fw.cols {
		if err := col.flush(fw.h); err != nil {
			return err
		}
		c := col.base()
		cc := format.ColumnChunk{FileOffset: fw.out.n}
		md := &cc.MetaData
		md.Type = c.typ
		md.PathInSchema = []string{c.name}
		md.Codec = c.codec.CompressionCodec()
		md.NumValues = c.numValues
		if dict, n := col.dictionaryPage(); n > 0 || c.encoding == format.RLEDictionary {
			md.DictionaryPageOffset = fw.out.n
			body := dict
			if md.Codec != format.Uncompressed {
				var err error
				if c.comp, err = c.codec.Encode(c.comp[:0], dict); err != nil {
					return fmt.Errorf("compressing the dictionary of %s: %w", c.name, err)
				}
				body = c.comp
			}
			ph := format.PageHeader{
				Type:                 format.DictionaryPage,
				UncompressedPageSize: int32(len(dict)),
				CompressedPageSize:   int32(len(body)),
				DictionaryPageHeader: thrift.New(format.DictionaryPageHeader{NumValues: int32(n), Encoding: format.Plain}),
			}
			head, err := fw.h.encode(&ph)
			if err != nil {
				return err
			}
			if _, err := fw.out.Write(head); err != nil {
				return err
			}
			if _, err := fw.out.Write(body); err != nil {
				return err
			}
			md.TotalUncompressedSize += int64(len(head) + len(dict))
			md.TotalCompressedSize += int64(len(head) + len(body))
			md.Encoding = []format.Encoding{format.Plain, format.RLE, format.RLEDictionary}
			md.EncodingStats = []format.PageEncodingStats{
				{PageType: format.DictionaryPage, Encoding: format.Plain, Count: 1},
				{PageType: format.DataPageV2, Encoding: format.RLEDictionary, Count: c.dataPages},
			}
		} else {
			md.Encoding = []format.Encoding{c.encoding}
			if c.optional && c.encoding != format.RLE {
				md.Encoding = append(md.Encoding, format.RLE)
				slices.Sort(md.Encoding)
			}
			md.EncodingStats = []format.PageEncodingStats{{PageType: format.DataPageV2, Encoding: c.encoding, Count: c.dataPages}}
		}
		md.DataPageOffset = fw.out.n
		if _, err := c.sink.copyTo(fw.out); err != nil {
			return fmt.Errorf("copying the pages of %s: %w", c.name, err)
		}
		md.TotalUncompressedSize += c.uncompressed
		md.TotalCompressedSize += c.compressed
		md.Statistics.NullCount = c.nullCount
		if c.bounds && c.hasBounds {
			md.Statistics.MinValue, md.Statistics.MaxValue = slices.Clone(c.min), slices.Clone(c.max)
		}
		oi := format.OffsetIndex{PageLocations: slices.Clone(c.locations)}
		for i := range oi.PageLocations {
			oi.PageLocations[i].Offset += md.DataPageOffset
		}
		ois = append(ois, oi)
		if c.bounds {
			cis = append(cis, c.ci)
		}
		rg.TotalByteSize += md.TotalUncompressedSize
		rg.TotalCompressedSize += md.TotalCompressedSize
		rg.Columns = append(rg.Columns, cc)
		if err := c.resetChunk(); err != nil {
			return err
		}
		col.resetDictionary()
	}
	fw.rowGroups = append(fw.rowGroups, rg)
	fw.indexes = append(fw.indexes, cis)
	fw.offsets = append(fw.offsets, ois)
	return nil
}

// close writes the page indexes and the footer.
func (fw *fileWriter) close() error {
	if !fw.started {
		if _, err := fw.out.Write([]byte("PAR1")); err != nil {
			return err
		}
	}
	enc := thrift.NewEncoder(thriftProto.NewWriter(fw.out))
	var numRows int64
	for g := range fw.rowGroups {
		rg := &fw.rowGroups[g]
		numRows += rg.NumRows
		k := 0
		for i, col := range fw.cols {
			if !col.base().bounds {
				continue
			}
			cc := &rg.Columns[i]
			cc.ColumnIndexOffset = fw.out.n
			if err := enc.Encode(&fw.indexes[g][k]); err != nil {
				return err
			}
			cc.ColumnIndexLength = int32(fw.out.n - cc.ColumnIndexOffset)
			k++
		}
	}
	for g := range fw.rowGroups {
		rg := &fw.rowGroups[g]
		for i := range fw.cols {
			cc := &rg.Columns[i]
			cc.OffsetIndexOffset = fw.out.n
			if err := enc.Encode(&fw.offsets[g][i]); err != nil {
				return err
			}
			cc.OffsetIndexLength = int32(fw.out.n - cc.OffsetIndexOffset)
		}
	}
	md := format.FileMetaData{
		Version:          2,
		Schema:           fw.tmpl.schema,
		NumRows:          numRows,
		RowGroups:        fw.rowGroups,
		KeyValueMetadata: fw.tmpl.kv,
		CreatedBy:        fw.tmpl.createdBy,
		ColumnOrders:     fw.tmpl.columnOrders,
	}
	start := fw.out.n
	if err := enc.Encode(&md); err != nil {
		return err
	}
	var tail [8]byte
	binary.LittleEndian.PutUint32(tail[:4], uint32(fw.out.n-start))
	copy(tail[4:], "PAR1")
	if _, err := fw.out.Write(tail[:]); err != nil {
		return err
	}
	return fw.out.flush()
}
