package columnar

import (
	"bytes"
	"encoding/base32"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestHuffmanCodec: the frames decode with Zstandard's decoder to the
// input, for empty, short, one-byte-repeated, incompressible and
// multi-block inputs, and base-32 text shrinks to near its 5 bits per
// character.
func TestHuffmanCodec(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 300<<10)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	b32 := []byte(base32.StdEncoding.EncodeToString(random))
	inputs := map[string][]byte{
		"empty":    {},
		"short":    []byte("abc"),
		"repeated": bytes.Repeat([]byte{'x'}, 5000),
		"random":   random[:70_000],
		"base32":   b32[:200_000],
		"base32 8": b32[:(128<<10)+7],
	}
	dec, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	var c huffmanCodec
	for name, in := range inputs {
		out, err := c.Encode(nil, in)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		back, err := dec.DecodeAll(out, nil)
		if err != nil {
			t.Fatalf("%s: decoding: %v", name, err)
		}
		if !bytes.Equal(back, in) {
			t.Fatalf("%s: %d bytes back, want %d", name, len(back), len(in))
		}
		if via, err := c.Decode(nil, out); err != nil || !bytes.Equal(via, in) {
			t.Fatalf("%s: Decode: %v", name, err)
		}
		if name == "base32" && len(out) > len(in)*66/100 {
			t.Errorf("base32: %d bytes of %d", len(out), len(in))
		}
		if name == "repeated" && len(out) > 20 {
			t.Errorf("repeated: %d bytes", len(out))
		}
	}
}
