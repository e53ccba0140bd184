package boltcache

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mementokit/mementokit/cache"
)

// boltFile is a test's own reading of the bbolt file format (page header:
// id u64, flags u16, count u16, overflow u32; leaf element: flags, pos,
// ksize, vsize u32; branch element: pos, ksize u32, pgid u64; the meta
// page's root bucket at byte 16+16), written apart from the code under
// test so that the damage is done where a real fault would put it.
type boltFile struct {
	b        []byte
	pageSize int
}

var ne = binary.NativeEndian

func readBoltFile(t *testing.T, path string) *boltFile {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return &boltFile{b: b, pageSize: int(ne.Uint32(b[16+8:]))}
}

func (f *boltFile) page(id uint64) []byte { return f.b[int(id)*f.pageSize:] }

// meta returns the offset of the newest meta page's body.
func (f *boltFile) meta() int {
	m0, m1 := 16, f.pageSize+16
	if ne.Uint64(f.b[m1+48:]) > ne.Uint64(f.b[m0+48:]) {
		return m1
	}
	return m0
}

// bucketRoot returns the root page id of the top-level bucket name.
func (f *boltFile) bucketRoot(t *testing.T, name string) uint64 {
	t.Helper()
	root := ne.Uint64(f.b[f.meta()+16:])
	p := f.page(root)
	if ne.Uint16(p[8:]) != 0x02 {
		t.Fatalf("root bucket page %d is not a leaf", root)
	}
	for i := range int(ne.Uint16(p[10:])) {
		e := p[16+16*i:]
		pos, ks := int(ne.Uint32(e[4:])), int(ne.Uint32(e[8:]))
		k := e[pos : pos+ks]
		if string(k) == name {
			return ne.Uint64(e[pos+ks:])
		}
	}
	t.Fatalf("no bucket %q", name)
	return 0
}

// firstLeaf descends from page id to its first leaf page.
func (f *boltFile) firstLeaf(id uint64) uint64 {
	for {
		p := f.page(id)
		if ne.Uint16(p[8:]) != 0x01 {
			return id
		}
		id = ne.Uint64(p[16+8:])
	}
}

func (f *boltFile) write(t *testing.T, path string) string {
	t.Helper()
	if err := os.WriteFile(path, f.b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// A cache file with one damaged page (both meta pages intact) is refused
// at Open with an error that names the file and says how to recover,
// whatever the damage: never a crash of the process, then or later.
func TestOpenRefusesADamagedPage(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.db")
	c, err := Open(good, &Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 400 {
		u := fmt.Sprintf("http://damage.example/%04d/%s", i, strings.Repeat("p", 60))
		if err := c.Put(t.Context(), u, cache.Result{Status: cache.StatusFound, Updated: t0.Add(time.Duration(i) * time.Second),
			Mementos: []cache.StoredMemento{{URIM: "http://a.example/web/" + u, Datetime: t0, Archive: "ia"}}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	f := readBoltFile(t, good)
	if root := f.bucketRoot(t, "entries"); ne.Uint16(f.page(root)[8:]) != 0x01 {
		t.Fatalf("entries root page %d is not a branch: the test needs a bigger file", root)
	}
	damage := []struct {
		name   string
		bucket string
		apply  func(f *boltFile, leaf, root []byte)
	}{
		{"leaf_key_size_huge", "entries", func(f *boltFile, leaf, _ []byte) { ne.PutUint32(leaf[16+8:], 0x7fffffff) }},
		{"leaf_key_size_past_page", "entries", func(f *boltFile, leaf, _ []byte) { ne.PutUint32(leaf[16+8:], uint32(3*f.pageSize)) }},
		{"leaf_value_size_huge", "mementos", func(f *boltFile, leaf, _ []byte) { ne.PutUint32(leaf[16+12:], 0xfffffff0) }},
		{"leaf_pos_huge", "entries", func(f *boltFile, leaf, _ []byte) { ne.PutUint32(leaf[16+4:], 0xfffff000) }},
		{"leaf_count_huge", "entries", func(f *boltFile, leaf, _ []byte) { ne.PutUint16(leaf[10:], 0xffff) }},
		{"index_key_size_huge", "updated", func(f *boltFile, leaf, _ []byte) { ne.PutUint32(leaf[16+8:], 0x40000000) }},
		{"branch_child_far_away", "entries", func(f *boltFile, _, root []byte) { ne.PutUint64(root[16+8:], 1<<40) }},
		{"branch_child_is_itself", "entries", func(f *boltFile, _, root []byte) { ne.PutUint64(root[16+8:], ne.Uint64(root[0:])) }},
		{"branch_key_size_huge", "entries", func(f *boltFile, _, root []byte) { ne.PutUint32(root[16+4:], 0x7fffffff) }},
		{"page_flags_garbage", "entries", func(f *boltFile, leaf, _ []byte) { ne.PutUint16(leaf[8:], 0x5a5a) }},
		{"page_zeroed", "mementos", func(f *boltFile, leaf, _ []byte) { clear(leaf[:f.pageSize]) }},
		{"overflow_past_end", "entries", func(f *boltFile, leaf, _ []byte) { ne.PutUint32(leaf[12:], 1<<30) }},
		// Lengths intact, keys out of order: only bbolt's own check sees it.
		{"keys_out_of_order", "entries", func(f *boltFile, leaf, _ []byte) {
			pos := int(ne.Uint32(leaf[16+4:]))
			leaf[16+pos] = 0xff
		}},
	}
	for _, d := range damage {
		t.Run(d.name, func(t *testing.T) {
			f := readBoltFile(t, good)
			root := f.bucketRoot(t, d.bucket)
			d.apply(f, f.page(f.firstLeaf(root)), f.page(root))
			path := f.write(t, filepath.Join(t.TempDir(), "damaged.db"))
			c, err := Open(path, &Options{Timeout: time.Second})
			if err == nil {
				// Whatever slipped through must still not crash a reader.
				defer c.Close()
				for i := range 400 {
					_, _ = c.Get(t.Context(), cache.URIRKeyOf(fmt.Sprintf("http://damage.example/%04d/%s", i, strings.Repeat("p", 60))))
				}
				_, _ = c.Stale(t.Context(), time.Now(), 1000)
				t.Fatalf("a file with a damaged page (%s) opened", d.name)
			}
			var se *cache.Error
			if !errors.As(err, &se) || !errors.Is(err, ErrDamaged) {
				t.Errorf("Open: %T %v, want a *cache.Error wrapping ErrDamaged", err, err)
			}
			for _, want := range []string{path, "delete", "rebuilt"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		})
	}
	// The undamaged file still opens and reads.
	c, err = Open(good, nil)
	if err != nil {
		t.Fatalf("the undamaged file: %v", err)
	}
	defer c.Close()
	if _, err := c.Get(t.Context(), cache.URIRKeyOf(fmt.Sprintf("http://damage.example/%04d/%s", 7, strings.Repeat("p", 60)))); err != nil {
		t.Errorf("Get from the undamaged file: %v", err)
	}
}

// A page damaged while the file is open (written under the process) makes
// the calls that read it fail with an error wrapping ErrDamaged, never a
// crash: lengths that run past the mapping (a fault, SIGSEGV) and past
// what a slice may hold (a runtime panic).
func TestDamageWhileOpenIsAnError(t *testing.T) {
	for _, d := range []struct {
		name       string
		pos, ksize uint32
	}{
		{"key_far_past_the_mapping", 0x40000000, 16}, // a fault: SIGSEGV without the guard
		{"lengths_16MiB", 0, 0x01000000},
		{"lengths_2GiB", 0, 0x7fffff00}, // a runtime panic: past what a slice may hold
	} {
		t.Run(d.name, func(t *testing.T) { damageWhileOpen(t, d.pos, d.ksize) })
	}
}

func damageWhileOpen(t *testing.T, pos, size uint32) {
	path := filepath.Join(t.TempDir(), "c.db")
	c, err := Open(path, &Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	key := func(i int) string { return fmt.Sprintf("http://open.example/%04d/%s", i, strings.Repeat("q", 60)) }
	for i := range 400 {
		if err := c.Put(t.Context(), key(i), cache.Result{Status: cache.StatusFound, Updated: t0,
			Mementos: []cache.StoredMemento{{URIM: "http://a.example/web/" + key(i), Datetime: t0, Archive: "ia"}}}); err != nil {
			t.Fatal(err)
		}
	}
	f := readBoltFile(t, path)
	w, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"entries", "mementos", "updated"} {
		leaf := f.page(f.firstLeaf(f.bucketRoot(t, name)))
		for i := range int(ne.Uint16(leaf[10:])) {
			off := int64(ne.Uint64(leaf))*int64(f.pageSize) + int64(16+16*i+4)
			var b [12]byte
			ne.PutUint32(b[:], pos+ne.Uint32(leaf[16+16*i+4:])) // pos
			ne.PutUint32(b[4:], size)                           // ksize
			ne.PutUint32(b[8:], size)                           // vsize
			if _, err := w.WriteAt(b[:], off); err != nil {
				t.Fatal(err)
			}
		}
	}
	w.Close()
	failed := 0
	for i := range 400 {
		if _, err := c.Get(t.Context(), cache.URIRKeyOf(key(i))); err != nil {
			failed++
			var se *cache.Error
			if !errors.As(err, &se) && !errors.Is(err, cache.ErrNotFound) {
				t.Errorf("Get: %T %v, want a *cache.Error or ErrNotFound (a damaged key no longer matches)", err, err)
			}
		}
	}
	_, serr := c.Stale(t.Context(), time.Now(), 1000)
	if failed == 0 || serr == nil {
		t.Errorf("%d Gets failed, Stale: %v; want failures after the pages were damaged", failed, serr)
	}
	if !errors.Is(serr, ErrDamaged) && !errors.Is(serr, errCorrupt) {
		t.Errorf("Stale after damage: %v, want ErrDamaged or a corrupt record", serr)
	}
	t.Logf("%d of 400 Gets failed; Stale: %v", failed, serr)
}

// FuzzOpenDamagedFile damages a real cache file at fuzz-chosen places
// (every 8-byte word the input names is overwritten): Open either refuses
// it or gives a store whose every call returns; the process never dies.
func FuzzOpenDamagedFile(f *testing.F) {
	dir := f.TempDir()
	good := filepath.Join(dir, "good.db")
	c, err := Open(good, &Options{NoSync: true})
	if err != nil {
		f.Fatal(err)
	}
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	key := func(i int) string { return fmt.Sprintf("http://fuzz.example/%03d/%s", i, strings.Repeat("z", 40)) }
	for i := range 120 {
		if err := c.Put(f.Context(), key(i), cache.Result{Status: cache.StatusFound, Updated: t0,
			Mementos: []cache.StoredMemento{{URIM: "http://a.example/web/" + key(i), Datetime: t0, Archive: "ia"}}}); err != nil {
			f.Fatal(err)
		}
		if err := c.Enqueue(f.Context(), key(i), cache.PriorityLive, t0); err != nil {
			f.Fatal(err)
		}
	}
	c.Close()
	whole, err := os.ReadFile(good)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(uint32(2*4096+16+8), uint64(0x7fffffff))
	f.Add(uint32(3*4096+10), uint64(0xffff))
	f.Add(uint32(5*4096+16), uint64(1<<40))
	f.Fuzz(func(t *testing.T, off uint32, word uint64) {
		b := append([]byte(nil), whole...)
		o := int(off) % (len(b) - 8)
		o -= o % 4
		ne.PutUint64(b[o:], word)
		path := filepath.Join(t.TempDir(), "d.db")
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := Open(path, &Options{Timeout: time.Second, NoSync: true})
		if err != nil {
			var se *cache.Error
			if !errors.As(err, &se) {
				t.Fatalf("Open: %T %v, want a *cache.Error", err, err)
			}
			return
		}
		defer c.Close()
		ctx := t.Context()
		for i := range 120 {
			_, _ = c.Get(ctx, cache.URIRKeyOf(key(i)))
		}
		_, _ = c.Stale(ctx, time.Now(), 500)
		_ = c.Put(ctx, key(7), cache.Result{Status: cache.StatusNone, Updated: t0})
		if j, err := c.Claim(ctx, "w", t0); err == nil {
			_ = c.Complete(ctx, j, t0)
		}
		_, _ = c.Cleanup(ctx, cache.DefaultCleanupPolicy(time.Now()))
	})
}

// A check that does not finish within Options.CheckTimeout refuses the
// file with an error that says what to do, and leaves it free to be
// opened again.
func TestOpenCheckTimeout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.db")
	c, err := Open(path, &Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := c.Put(t.Context(), "http://e.example/", cache.Result{Status: cache.StatusNone, Updated: t0}); err != nil {
		t.Fatal(err)
	}
	c.Close()
	_, err = Open(path, &Options{CheckTimeout: time.Nanosecond})
	var se *cache.Error
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "CheckTimeout") || !strings.Contains(err.Error(), path) {
		t.Fatalf("Open with a 1 ns check: %v, want a *cache.Error naming the file and CheckTimeout", err)
	}
	c, err = Open(path, &Options{Timeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("Open after a check that timed out: %v", err)
	}
	c.Close()
	c, err = Open(path, &Options{CheckTimeout: -1})
	if err != nil {
		t.Fatalf("Open unchecked: %v", err)
	}
	c.Close()
}
