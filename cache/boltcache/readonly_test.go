package boltcache

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mementokit/mementokit/cache"
)

func TestOpenReadOnly(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()

	missing := filepath.Join(dir, "nosuch", "x.db")
	if _, err := Open(missing, &Options{ReadOnly: true}); !errors.Is(err, ErrNoFile) {
		t.Fatalf("missing file: err %v, want ErrNoFile", err)
	}
	if _, err := os.Stat(filepath.Dir(missing)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a read-only open of a missing file made its folder: %v", err)
	}

	empty := filepath.Join(dir, "empty.db")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(empty, &Options{ReadOnly: true}); err == nil {
		t.Fatal("an empty file opened read-only as a cache")
	}
	if st, err := os.Stat(empty); err != nil || st.Size() != 0 {
		t.Fatalf("the empty file was written: %v %v", st, err)
	}

	path := filepath.Join(dir, "c.db")
	w, err := Open(path, &Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	m := cache.StoredMemento{URIM: "http://a.example/web/1/http://x.example/", Datetime: at, Archive: "A"}
	if err := w.Put(ctx, "http://x.example/", cache.Result{Status: cache.StatusFound, Updated: at, Mementos: []cache.StoredMemento{m}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open(path, &Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	e, err := r.Get(ctx, cache.URIRKeyOf("http://x.example/"))
	if err != nil || len(e.Mementos) != 1 || e.Mementos[0].URIM != m.URIM {
		t.Fatalf("read-only Get: %+v, %v", e, err)
	}
	if err := r.Put(ctx, "http://y.example/", cache.Result{Status: cache.StatusNone, Updated: at}); err == nil {
		t.Error("Put on a read-only cache succeeded")
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("a read-only open changed the file")
	}
}
