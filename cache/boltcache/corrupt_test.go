package boltcache

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/mementokit/mementokit/cache"
)

func TestCorruptRecordIsAStoreError(t *testing.T) {
	ctx := t.Context()
	c, err := Open(filepath.Join(t.TempDir(), "c.db"), &Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	r := cache.Result{Status: cache.StatusFound, Updated: t0, Mementos: []cache.StoredMemento{{URIM: "u", Datetime: t0, Archive: "ia"}}}
	if err := c.Put(ctx, "e.org/", r); err != nil {
		t.Fatal(err)
	}
	key := cache.URIRKeyOf("e.org/")
	good := encodeMementos(r.Mementos)
	info := encodeInfo(&cache.Info{URIR: "e.org/", Status: cache.StatusFound, Updated: t0})
	cases := []struct {
		name, bucket string
		value        []byte
		want         string
	}{
		{"truncated_mementos", "mementos", good[:len(good)-1], "bad varint"},
		{"huge_count", "mementos", []byte{1, 0xff, 0xff, 0xff, 0xff, 0x0f}, "mementos cannot fit"},
		{"future_format", "entries", []byte{9}, "unknown format 9"},
		{"bad_status", "entries", []byte{1, 42}, "unknown status 42"},
		{"trailing_bytes", "entries", append(encodeInfo(&cache.Info{URIR: "e.org/"}), 0), "1 trailing bytes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := c.db.Update(func(tx *bolt.Tx) error { return tx.Bucket([]byte(tc.bucket)).Put(key[:], tc.value) })
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Get(ctx, key)
			var se *cache.Error
			if !errors.As(err, &se) || !errors.Is(err, errCorrupt) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Get of a damaged record: err = %v, want a *cache.Error mentioning %q", err, tc.want)
			}
			err = c.db.Update(func(tx *bolt.Tx) error { // repair
				if err := tx.Bucket(bEntries).Put(key[:], info); err != nil {
					return err
				}
				return tx.Bucket(bMementos).Put(key[:], good)
			})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Get(ctx, key); err != nil {
				t.Fatalf("after repair: %v", err)
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	notBolt := filepath.Join(dir, "text")
	if err := os.WriteFile(notBolt, []byte(strings.Repeat("not a bolt file\n", 1000)), 0o600); err != nil {
		t.Fatal(err)
	}
	locked := filepath.Join(dir, "locked.db")
	first, err := Open(locked, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	// A file cut short (a copy interrupted, a full disk): bbolt would map
	// past its end and the process would die of SIGBUS.
	full := filepath.Join(dir, "full.db")
	c, err := Open(full, &Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 50 {
		u := "example.org/" + strings.Repeat("p", i*40)
		if err := c.Put(t.Context(), u, cache.Result{Status: cache.StatusFound, Updated: t0,
			Mementos: []cache.StoredMemento{{URIM: "http://a.example/" + u, Datetime: t0, Archive: "ia"}}}); err != nil {
			t.Fatal(err)
		}
	}
	c.Close()
	whole, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	truncated := func(name string, n int) string {
		p := filepath.Join(dir, name+".db")
		if err := os.WriteFile(p, whole[:n], 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	emptyStore := filepath.Join(dir, "empty.db")
	if c, err = Open(emptyStore, &Options{NoSync: true}); err != nil {
		t.Fatal(err)
	}
	c.Close()
	emptyHalf := filepath.Join(dir, "empty-half.db")
	if b, err := os.ReadFile(emptyStore); err != nil {
		t.Fatal(err)
	} else if err := os.WriteFile(emptyHalf, b[:len(b)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	// The freelist page of the newest meta page zeroed: bbolt panics on it.
	noFreelist := filepath.Join(dir, "nofreelist.db")
	{
		b := append([]byte(nil), whole...)
		ps := int(binary.NativeEndian.Uint32(b[16+8:]))
		meta := b[16:]
		if binary.NativeEndian.Uint64(b[ps+16+48:]) > binary.NativeEndian.Uint64(meta[48:]) {
			meta = b[ps+16:]
		}
		fl := int(binary.NativeEndian.Uint64(meta[32:]))
		clear(b[fl*ps : (fl+1)*ps])
		if err := os.WriteFile(noFreelist, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// A FIFO (opening it for reading waits for a writer, for ever and past
	// signals) and a folder are no cache files.
	fifo := filepath.Join(dir, "fifo.db")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "folder.db")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, path, want string }{
		{"freelist_page_zeroed", noFreelist, "delete it"},
		{"new_store_truncated_to_half", emptyHalf, ""},
		{"truncated_to_half", truncated("half", len(whole)/2), "truncated"},
		{"truncated_to_two_pages", truncated("two", 2*os.Getpagesize()), "truncated"},
		{"truncated_in_first_meta", truncated("meta", 100), ""},
		{"not_a_bolt_file", notBolt, "not a bbolt cache file"},
		{"locked_by_another_handle", locked, "locked by another process"},
		{"missing_folder", filepath.Join(dir, "no", "such", "c.db"), ""},
		{"fifo", fifo, "not a regular file"},
		{"folder", folder, "not a regular file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			type opened struct {
				c   *Cache
				err error
			}
			ch := make(chan opened, 1)
			go func() {
				c, err := Open(tc.path, &Options{Timeout: 100 * time.Millisecond})
				ch <- opened{c, err}
			}()
			var o opened
			select {
			case o = <-ch:
			case <-time.After(30 * time.Second):
				t.Fatalf("Open(%s) did not return", tc.path)
			}
			var se *cache.Error
			if !errors.As(o.err, &se) {
				o.c.Close()
				t.Fatalf("Open(%s) err = %v, want a *cache.Error", tc.path, o.err)
			}
			if !strings.Contains(o.err.Error(), tc.path) || !strings.Contains(o.err.Error(), tc.want) {
				t.Errorf("error %q does not name the file or lacks %q", o.err, tc.want)
			}
		})
	}
}
