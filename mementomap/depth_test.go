package mementomap

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// checkCompaction compacts in with o and checks what every accepted
// compaction keeps: the output copies through unchanged (sorted, valid),
// totals are conserved, and every key the input answers for is still
// found present.
func checkCompaction(t *testing.T, in []byte, o *CompactOptions) {
	t.Helper()
	var out bytes.Buffer
	if _, err := Compact(&out, bytes.NewReader(in), o); err != nil {
		return
	}
	var again bytes.Buffer
	if _, err := Compact(&again, bytes.NewReader(out.Bytes()), opts(math.Inf(1), math.Inf(1), false)); err != nil {
		t.Fatalf("depths %d/%d: output is not a valid map: %v\n%s", o.HostDepth, o.PathDepth, err, out.Bytes())
	}
	if !bytes.Equal(again.Bytes(), out.Bytes()) {
		t.Fatalf("depths %d/%d: output changed when copied:\n%s\n---\n%s", o.HostDepth, o.PathDepth, out.Bytes(), again.Bytes())
	}
	src, dst := FromBytes(in), FromBytes(out.Bytes())
	for _, l := range strings.Split(string(in), "\n") {
		if isBlank([]byte(l)) || l[0] == '!' {
			continue
		}
		k, _, _ := splitLine([]byte(l))
		if m, _ := src.LookupSURT(string(k)); !m.Present() || m.Key != string(k) {
			continue
		}
		if m, _ := dst.LookupSURT(string(k)); !m.Present() {
			t.Fatalf("depths %d/%d W=(%v,%v): false negative for %q\ninput:\n%s\noutput:\n%s",
				o.HostDepth, o.PathDepth, o.HostFactor, o.PathFactor, k, in, out.Bytes())
		}
	}
}

// TestCompactEveryDepth compacts keys of many path and host depths with
// tracked depths from 1 to MaxDepth (FuzzCompactDepths tries them all): no
// depth panics (a path depth of
// 1 once indexed past the path trail on any key of two segments), and
// every output keeps the contract.
func TestCompactEveryDepth(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var base strings.Builder
	for _, k := range randomMap(r, 300) {
		fmt.Fprintf(&base, "%s %d/1\n", k, 1+r.IntN(3))
	}
	inputs := map[string][]byte{
		"two segments": []byte("com,example)/a/b 1\ncom,example)/a/c 2\n"),
		"deep":         []byte("com,example)/a/b/c/d/e/f/g/h/i/j/k 1\ncom,example,a,b,c,d,e,f,g,h,i)/x/y 1\n"),
		"random":       []byte(base.String()),
	}
	depths := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 16, 32, MaxDepth - 1, MaxDepth}
	for _, in := range inputs {
		for _, hd := range depths {
			for _, pd := range depths {
				for _, w := range []float64{0, 1} {
					o := opts(w, w, false)
					o.HostDepth, o.PathDepth = hd, pd
					checkCompaction(t, in, o)
				}
			}
		}
	}
}

// FuzzCompactDepths is FuzzCompact over every host and path depth
// Compact accepts.
func FuzzCompactDepths(f *testing.F) {
	f.Add([]byte("com,example)/a/b 1\ncom,example)/a/c 2\n"), uint8(1), uint8(1), uint8(8), uint8(1))
	f.Add([]byte(sample01), uint8(0), uint8(0), uint8(1), uint8(2))
	f.Add([]byte("com,a,b,c,d)/x/y/z 1\ncom,a,b,c,e)/ 1\ncom,a,b,c,f)/ 1\n"), uint8(0), uint8(0), uint8(2), uint8(64))
	weights := []float64{0, 0.25, 0.5, 1, 2, 4, math.Inf(1)}
	f.Fuzz(func(t *testing.T, in []byte, hf, pf, hd, pd uint8) {
		o := opts(weights[int(hf)%len(weights)], weights[int(pf)%len(weights)], false)
		o.HostDepth, o.PathDepth = 1+int(hd)%MaxDepth, 1+int(pd)%MaxDepth
		o.MaxLineLength = 4096
		checkCompaction(t, in, o)
	})
}
