package mementomap

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
)

// FuzzCompact feeds arbitrary maps to Compact. It must never panic; when
// the input is accepted, the output must be a valid sorted map (it copies
// through a second compaction unchanged) and every key the input says is
// present must still be found present (no false negative).
func FuzzCompact(f *testing.F) {
	f.Add([]byte(sample01), uint8(1), uint8(1))
	f.Add([]byte("!meta {}\ncom,a)/ 1\ncom,a)/b 2/1\ncom,a)/c 0\ncom,a,* 3+\n"), uint8(0), uint8(0))
	f.Add([]byte("uk,co,a)/ 1\nuk,co,b)/ 1\nuk,co,c)/ 1\n"), uint8(0), uint8(2))
	f.Add([]byte("* 5\nlocalhost)/a 1\n[::1])/ 1/1\n"), uint8(3), uint8(0))
	weights := []float64{0, 0.25, 0.5, 1, 2, 4, math.Inf(1)}
	f.Fuzz(func(t *testing.T, in []byte, hf, pf uint8) {
		o := opts(weights[int(hf)%len(weights)], weights[int(pf)%len(weights)], false)
		o.MaxLineLength = 4096
		var out bytes.Buffer
		if _, err := Compact(&out, bytes.NewReader(in), o); err != nil {
			return
		}
		var again bytes.Buffer
		if _, err := Compact(&again, bytes.NewReader(out.Bytes()), opts(math.Inf(1), math.Inf(1), false)); err != nil {
			t.Fatalf("output is not a valid map: %v\n%s", err, out.Bytes())
		}
		if !bytes.Equal(again.Bytes(), out.Bytes()) {
			t.Fatalf("output changed when copied:\n%s\n---\n%s", out.Bytes(), again.Bytes())
		}
		src, dst := FromBytes(in), FromBytes(out.Bytes())
		for _, l := range strings.Split(string(in), "\n") {
			if isBlank([]byte(l)) || l[0] == '!' {
				continue
			}
			k, _, _ := splitLine([]byte(l))
			// Only keys the input itself answers for are checked: an
			// exclusion or a wildcard of the input decides the others.
			if m, _ := src.LookupSURT(string(k)); !m.Present() || m.Key != string(k) {
				continue
			}
			if m, _ := dst.LookupSURT(string(k)); !m.Present() {
				t.Fatalf("false negative for %q after compaction (%+v)\ninput:\n%s\noutput:\n%s", k, m, in, out.Bytes())
			}
		}
	})
}

// FuzzLookup looks keys up in arbitrary bytes: it must never panic, and in
// a valid map every key must be found by Get.
func FuzzLookup(f *testing.F) {
	f.Add([]byte(sample01), "com,cnn)/news/a/b/c")
	f.Add([]byte("\n\n!x\n\ncom,a)/ 1"), "com,a)/")
	f.Add([]byte("com,a) 1\r\ncom,b)/ 2"), "com,a)/")
	f.Fuzz(func(t *testing.T, data []byte, key string) {
		m := FromBytes(data)
		if _, err := m.LookupSURT(key); err != nil {
			if errors.Is(err, ErrLoneCR) || errors.Is(err, ErrNotMap) {
				return // refused as a whole: no lookup answers absent
			}
			t.Fatal(err)
		}
		if _, err := Compact(&bytes.Buffer{}, bytes.NewReader(data), opts(math.Inf(1), math.Inf(1), false)); err != nil {
			return // not a sorted map: only "no panic" holds
		}
		for _, l := range strings.Split(string(data), "\n") {
			if isBlank([]byte(l)) || l[0] == '!' {
				continue
			}
			k, v, _ := splitLine([]byte(l))
			got, ok := m.Get(string(k))
			if !ok || got != string(v) {
				t.Fatalf("Get(%q) = %q, %v; want %q", k, got, ok, v)
			}
		}
	})
}
