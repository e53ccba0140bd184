package httptoken

import (
	"strings"
	"testing"
)

// TestIsTchar checks every byte against RFC 9110 §5.6.2's definition,
// written out as the grammar gives it.
func TestIsTchar(t *testing.T) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		want := 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", b) >= 0
		if got := IsTchar(b); got != want {
			t.Errorf("IsTchar(%#02x) = %v, want %v", b, got, want)
		}
	}
}
