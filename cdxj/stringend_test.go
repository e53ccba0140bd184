package cdxj

import (
	"math/rand/v2"
	"testing"
)

// stringEndRef is stringEnd's definition: the first quote after b[i] that
// follows an even number of backslashes.
func stringEndRef(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return -1
}

// stringEnd agrees with its definition on strings of every length up to
// 40 bytes, with quotes and runs of backslashes anywhere (both sides of an
// eight-byte word's edge).
func TestStringEnd(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte(`ab"\\\{} `)
	for n := 0; n < 200000; n++ {
		b := make([]byte, 1+rng.IntN(40))
		b[0] = '"'
		for k := 1; k < len(b); k++ {
			b[k] = alphabet[rng.IntN(len(alphabet))]
		}
		if got, want := stringEnd(b, 0), stringEndRef(b, 0); got != want {
			t.Fatalf("stringEnd(%q) = %d, want %d", b, got, want)
		}
	}
}
