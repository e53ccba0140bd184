package timestamp

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// earliest14 agrees with pad on 14-character timestamps: random digits with
// bytes next to '0' and '9' (the '/', ':', 0xb0 and 0x39+6 neighbours of the
// digit check) here and there, and every month's last days around the leap
// years 1900, 2000 and 2024, at the largest valid hour, minute and second
// and just past them.
func TestEarliest14(t *testing.T) {
	check := func(ts string) {
		t.Helper()
		var fast, slow Digits
		ok := earliest14(&fast, ts)
		err := pad(&slow, ts, false)
		if ok != (err == nil) || ok && fast != slow {
			t.Fatalf("%q: earliest14 %v %s, pad %v %s", ts, ok, fast[:], err, slow[:])
		}
	}
	for _, y := range []int{1900, 1999, 2000, 2023, 2024} {
		for m := 0; m <= 13; m++ {
			for d := 0; d <= 32; d++ {
				for _, hms := range []string{"000000", "235959", "240000", "236000", "235960"} {
					check(fmt.Sprintf("%04d%02d%02d%s", y, m, d, hms))
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	odd := []byte{'/', ':', 0xb0, 0xb9, 0x3f, 0x20, 0}
	valid := 0
	for range 300000 {
		b := make([]byte, 14)
		for i := range b {
			b[i] = byte('0' + rng.IntN(10))
		}
		b[4], b[5] = byte('0'+rng.IntN(2)), byte('0'+rng.IntN(10))
		b[8] = byte('0' + rng.IntN(3))
		if rng.IntN(4) == 0 {
			b[rng.IntN(14)] = odd[rng.IntN(len(odd))]
		}
		var d Digits
		if earliest14(&d, string(b)) {
			valid++
		}
		check(string(b))
	}
	if valid < 5000 {
		t.Fatalf("only %d valid timestamps drawn", valid)
	}
}
