package ukvs

import (
	"bytes"
	"fmt"
	"io"
	"testing"
)

// benchMap builds a sorted MementoMap of n lines shaped like a compacted
// map: SURT keys of 20–40 bytes, some wildcards, mixed frequencies.
func benchMap(n int) []byte {
	var b bytes.Buffer
	b.WriteString("!fields {keys: [\"surt\"], values: [\"frequency\"]}\n!meta {type: \"MementoMap\"}\n")
	freqs := []string{"12/3", "1", "300+/20-", "0", "2500~/900", "54321/20000"}
	for i := 0; i < n; i++ {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, "com,example%07d)/ %s\n", i, freqs[i%len(freqs)])
		case 1:
			fmt.Fprintf(&b, "com,example%07d)/* %s\n", i, freqs[i%len(freqs)])
		case 2:
			fmt.Fprintf(&b, "com,example%07d)/news/2019/story.html %s\n", i, freqs[i%len(freqs)])
		default:
			fmt.Fprintf(&b, "com,example%07d,www)/ %s\n", i, freqs[i%len(freqs)])
		}
	}
	return b.Bytes()
}

// BenchmarkRead reads a MementoMap and parses every line's key and
// frequency; the target is ≥ 10,000,000 lines/s and 0 allocs/line.
func BenchmarkRead(b *testing.B) {
	const lines = 100_000
	data := benchMap(lines)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	rd := bytes.NewReader(data)
	var keyBytes int
	for b.Loop() {
		rd.Reset(data)
		r := NewReader(rd)
		for {
			rec, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			var f Frequency
			if err := f.UnmarshalText(rec.Values[0]); err != nil {
				b.Fatal(err)
			}
			keyBytes += len(rec.Keys[0])
		}
	}
	b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
	if keyBytes == 0 {
		b.Fatal("no keys read")
	}
}

// BenchmarkReadSteadyState reads one line per iteration from an endless
// map, so that allocs/op is the allocations per line with the reader's
// set-up excluded.
func BenchmarkReadSteadyState(b *testing.B) {
	data := benchMap(1000)
	body := data[bytes.Index(data, []byte("\ncom,"))+1:] // without the headers
	r := NewReader(&cycle{data: body})
	b.SetBytes(int64(len(body)) / 1000)
	b.ReportAllocs()
	for b.Loop() {
		rec, err := r.Read()
		if err != nil {
			b.Fatal(err)
		}
		var f Frequency
		if err := f.UnmarshalText(rec.Values[0]); err != nil {
			b.Fatal(err)
		}
	}
}

// cycle repeats data forever.
type cycle struct {
	data []byte
	off  int
}

func (c *cycle) Read(p []byte) (int, error) {
	n := copy(p, c.data[c.off:])
	c.off = (c.off + n) % len(c.data)
	return n, nil
}

func BenchmarkWriteFrequency(b *testing.B) {
	keys := make([][]byte, 100_000)
	for i := range keys {
		keys[i] = fmt.Appendf(nil, "com,example%07d)/news/2019/story.html", i)
	}
	f, _ := ParseFrequency("300+/20-")
	b.ReportAllocs()
	b.SetBytes(int64(len(keys[0]) + 10))
	w := NewWriter(io.Discard)
	i := 0
	for b.Loop() {
		if i == len(keys) {
			w = NewWriter(io.Discard)
			i = 0
		}
		if err := w.WriteFrequency(keys[i], f); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkParseFrequency(b *testing.B) {
	in := []byte("2500~/900")
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		var f Frequency
		if err := f.UnmarshalText(in); err != nil {
			b.Fatal(err)
		}
	}
}
