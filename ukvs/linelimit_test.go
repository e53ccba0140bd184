package ukvs

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// zeros is an input of n NUL bytes and no newline, counting what is read.
type zeros struct{ n, read int64 }

func (z *zeros) Read(p []byte) (int, error) {
	if z.read >= z.n {
		return 0, io.EOF
	}
	k := min(int64(len(p)), z.n-z.read)
	clear(p[:k])
	z.read += k
	return int(k), nil
}

// TestEndlessLine: a line that does not end (/dev/zero) is refused once it
// passes the limit, without reading on to its end.
func TestEndlessLine(t *testing.T) {
	const max = 1 << 20
	z := &zeros{n: 50 * max}
	r := NewReader(z)
	r.MaxLineLength = max
	_, err := r.Read()
	if !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("Read = %v, want ErrLineTooLong", err)
	}
	if z.read > max+2*readBufferSize {
		t.Errorf("read %d bytes before refusing a line longer than %d", z.read, max)
	}
	// Check stops there too.
	z = &zeros{n: 50 * DefaultMaxLineLength}
	if _, err := Check(z); !errors.Is(err, ErrLineTooLong) {
		t.Errorf("Check = %v, want ErrLineTooLong", err)
	}
	if z.read > DefaultMaxLineLength+2*readBufferSize {
		t.Errorf("Check read %d bytes", z.read)
	}
}

// TestWriterLineLimit: the Writer refuses what the Reader would refuse, and
// writes (for the Reader to read) what it accepts.
func TestWriterLineLimit(t *testing.T) {
	const max = 1000
	var buf bytes.Buffer
	w := NewWriter(&buf)
	w.MaxLineLength = max
	if err := w.WriteHeader("meta", `{"x": "`+strings.Repeat("h", max)+`"}`); !errors.Is(err, ErrLineTooLong) {
		t.Errorf("long header: %v, want ErrLineTooLong", err)
	}
	fit := "com,a)/" + strings.Repeat("a", max-len("com,a)/ 1"))
	if err := w.Write([]string{fit}, []string{"1"}, nil); err != nil {
		t.Fatalf("a line of exactly %d bytes: %v", max, err)
	}
	long := "com,b)/" + strings.Repeat("b", max)
	err := w.Write([]string{long}, []string{"1"}, nil)
	var pe *ParseError
	if !errors.As(err, &pe) || !errors.Is(err, ErrLineTooLong) || pe.Line != 2 || !strings.HasPrefix(pe.Key, "com,b)/bbb") {
		t.Fatalf("long line: %v, want a *ParseError at line 2 wrapping ErrLineTooLong naming the key", err)
	}
	if err := w.WriteFrequency([]byte(long), Frequency{URIM: Exactly(1)}); !errors.Is(err, ErrLineTooLong) {
		t.Errorf("WriteFrequency of a long key: %v", err)
	}
	// The refused key is not remembered: a key between the two is in order.
	if err := w.Write([]string{"com,a,z)/"}, []string{"2"}, nil); err != nil {
		t.Errorf("after a refused line: %v", err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	r := NewReader(bytes.NewReader(buf.Bytes()))
	r.MaxLineLength = max
	n, err := 0, error(nil)
	for _, err = range r.All() {
		if err != nil {
			break
		}
		n++
	}
	if err != nil || n != 2 {
		t.Errorf("read back %d lines, %v; want 2", n, err)
	}
	if strings.Contains(buf.String(), "bbbb") {
		t.Error("the refused line was written")
	}
}
