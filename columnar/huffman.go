package columnar

import (
	"encoding/binary"
	"errors"

	"github.com/klauspost/compress/huff0"
	"github.com/parquet-go/parquet-go/compress/zstd"
	"github.com/parquet-go/parquet-go/format"
)

// huffmanCodec writes Zstandard frames (RFC 8878) whose blocks hold
// Huffman-coded literals and no sequences: entropy coding without match
// finding, for values that have no repeats to find (base-32 hashes), at a
// fraction of the CPU of Zstandard's fastest level or of DEFLATE's
// Huffman-only blocks. Any Zstandard decoder reads them; the column chunk
// says ZSTD.
type huffmanCodec struct {
	scratch huff0.Scratch
	zstd    zstd.Codec
}

func (c *huffmanCodec) String() string { return "ZSTD" }

func (c *huffmanCodec) CompressionCodec() format.CompressionCodec { return format.Zstd }

// Decode decodes any Zstandard frame.
func (c *huffmanCodec) Decode(dst, src []byte) ([]byte, error) { return c.zstd.Decode(dst, src) }

// maxBlock is Zstandard's largest block (Block_Maximum_Size).
const maxBlock = 128 << 10

// Encode appends to dst[:0] one frame holding src. Not safe for concurrent
// use (the Huffman tables are scratch of the codec).
func (c *huffmanCodec) Encode(dst, src []byte) ([]byte, error) {
	dst = append(dst[:0], 0x28, 0xB5, 0x2F, 0xFD) // magic number
	// Frame header: single segment (the window is the content), a 4-byte
	// content size, no checksum, no dictionary.
	dst = append(dst, 0xA0)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(src)))
	if len(src) == 0 {
		return appendBlockHeader(dst, 0, blockRaw, true), nil
	}
	for len(src) > 0 {
		n := min(len(src), maxBlock)
		block, last := src[:n], n == len(src)
		src = src[n:]
		c.scratch.Reuse = huff0.ReusePolicyNone
		var out []byte
		var err error
		if len(block) >= 64 {
			out, _, err = huff0.Compress4X(block, &c.scratch)
		} else {
			err = huff0.ErrIncompressible
		}
		hsize := literalsHeaderSize(len(out), len(block))
		if err == nil && hsize+len(out)+1 >= len(block) {
			err = huff0.ErrIncompressible
		}
		switch {
		case errors.Is(err, huff0.ErrUseRLE):
			dst = appendBlockHeader(dst, len(block), blockRLE, last)
			dst = append(dst, block[0])
		case errors.Is(err, huff0.ErrIncompressible):
			dst = appendBlockHeader(dst, len(block), blockRaw, last)
			dst = append(dst, block...)
		case err != nil:
			return dst, err
		default:
			dst = appendBlockHeader(dst, hsize+len(out)+1, blockCompressed, last)
			dst = appendLiteralsHeader(dst, len(out), len(block))
			dst = append(dst, out...)
			dst = append(dst, 0) // Number_of_Sequences: none
		}
	}
	return dst, nil
}

// Block_Type values.
const (
	blockRaw        = 0
	blockRLE        = 1
	blockCompressed = 2
)

// appendBlockHeader appends a 3-byte Block_Header.
func appendBlockHeader(dst []byte, size, typ int, last bool) []byte {
	h := uint32(size)<<3 | uint32(typ)<<1
	if last {
		h |= 1
	}
	return append(dst, byte(h), byte(h>>8), byte(h>>16))
}

// literalsHeaderSize is the size of the Literals_Section_Header of
// Huffman-coded literals in four streams: 3, 4 or 5 bytes as the sizes
// take 10, 14 or 18 bits.
func literalsHeaderSize(compressed, regenerated int) int {
	switch n := max(compressed, regenerated); {
	case n < 1<<10:
		return 3
	case n < 1<<14:
		return 4
	}
	return 5
}

// appendLiteralsHeader appends the Literals_Section_Header of a
// Compressed_Literals_Block in four streams.
func appendLiteralsHeader(dst []byte, compressed, regenerated int) []byte {
	size := literalsHeaderSize(compressed, regenerated)
	bitsPer := []int{3: 10, 4: 14, 5: 18}[size]
	format := uint64(size - 2) // Size_Format 1, 2, 3
	h := uint64(2) | format<<2 | uint64(regenerated)<<4 | uint64(compressed)<<(4+bitsPer)
	for i := range size {
		dst = append(dst, byte(h>>(8*i)))
	}
	return dst
}
