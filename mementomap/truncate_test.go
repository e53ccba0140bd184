package mementomap

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bigMap writes a sorted map of n lines to a file and returns its path and
// keys.
func bigMap(t *testing.T, n int) (string, []string) {
	t.Helper()
	var b bytes.Buffer
	keys := make([]string, n)
	for i := range n {
		keys[i] = fmt.Sprintf("com,example,h%07d)/page/%d", i, i)
		fmt.Fprintf(&b, "%s %d/1\n", keys[i], 1+i%5)
	}
	p := filepath.Join(t.TempDir(), "big.ukvs")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p, keys
}

// TestTruncatedWhileOpen truncates a mapped map file under an open Map:
// the reads past the new end fault, and the Map turns the fault into an
// error wrapping ErrChanged (once, then for every call) instead of the
// process dying of SIGBUS.
func TestTruncatedWhileOpen(t *testing.T) {
	for _, tc := range []struct {
		name string
		call func(m *Map, keys []string) error
	}{
		{"LookupSURT", func(m *Map, keys []string) error { _, err := m.LookupSURT(keys[len(keys)-1]); return err }},
		{"Lookup", func(m *Map, keys []string) error { _, err := m.Lookup("http://h0099999.example.com/"); return err }},
		{"Stats", func(m *Map, _ []string) error { _, err := m.Stats(); return err }},
		{"DataLines", func(m *Map, _ []string) error { _, err := m.DataLines(); return err }},
		{"Totals", func(m *Map, _ []string) error { _, err := m.Totals(); return err }},
		{"LookupAll", func(m *Map, keys []string) error {
			_, err := m.LookupAll(&bytes.Buffer{}, strings.NewReader(keys[len(keys)/2]+"\n"))
			return err
		}},
		{"Get", func(m *Map, keys []string) error {
			if _, ok := m.Get(keys[len(keys)-1]); ok {
				return errors.New("Get found a key of the truncated file")
			}
			return m.Changed()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, keys := bigMap(t, 100000) // about 4 MiB
			m, err := Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			for _, k := range []string{keys[0], keys[len(keys)/2], keys[len(keys)-1]} {
				if got, err := m.LookupSURT(k); err != nil || !got.Present() {
					t.Fatalf("before truncation: LookupSURT(%q) = %+v, %v", k, got, err)
				}
			}
			if err := m.Changed(); err != nil {
				t.Fatalf("Changed before truncation: %v", err)
			}
			if err := os.Truncate(p, 0); err != nil {
				t.Fatal(err)
			}
			if err := m.Changed(); !errors.Is(err, ErrChanged) {
				t.Errorf("Changed after truncation = %v, want ErrChanged", err)
			}
			err = tc.call(m, keys)
			if !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), p) {
				t.Fatalf("after truncation: %v, want an error wrapping ErrChanged naming %s", err, p)
			}
			// Every later lookup says so too, without touching the mapping.
			if _, err := m.LookupSURT(keys[0]); !errors.Is(err, ErrChanged) {
				t.Errorf("a later lookup: %v, want ErrChanged", err)
			}
		})
	}
}

// TestChangedInPlace: a change of the file's bytes in place (same size) is
// told by Changed, a rename over its path is not a change.
func TestChangedInPlace(t *testing.T) {
	p := writeMap(t, "com,a)/ 1\ncom,b)/ 2\n")
	m, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	tmp := p + ".new"
	os.WriteFile(tmp, []byte("com,c)/ 3\n"), 0o644)
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
	if err := m.Changed(); err != nil {
		t.Errorf("Changed after a rename over the path: %v", err)
	}
	p2 := writeMap(t, "com,a)/ 1\ncom,b)/ 2\n")
	m2, err := Open(p2)
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Close()
	f, err := os.OpenFile(p2, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte("9"), 8) // "com,a)/ 9"
	f.Close()
	st, _ := os.Stat(p2)
	if st.ModTime().Equal(m2.mtime) {
		t.Skip("the file system's clock did not move")
	}
	if err := m2.Changed(); !errors.Is(err, ErrChanged) {
		t.Errorf("Changed after a write in place = %v, want ErrChanged", err)
	}
}

// TestOpenNotRegular: a directory or a FIFO is refused with a clear error.
func TestOpenNotRegular(t *testing.T) {
	dir := t.TempDir()
	_, err := Open(dir)
	if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "directory") || !strings.Contains(err.Error(), dir) {
		t.Errorf("Open(dir) = %v, want ErrNotRegular saying it is a directory", err)
	}
}
