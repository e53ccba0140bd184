package boltcache

import (
	"bytes"
	"testing"
	"time"

	"github.com/mementokit/mementokit/cache"
)

// FuzzDecode feeds arbitrary bytes to the record decoders: they must return
// an error or a value that encodes back to the same bytes, never panic.
func FuzzDecode(f *testing.F) {
	t0 := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	f.Add(encodeInfo(&cache.Info{URIR: "example.org/", Status: cache.StatusFound, Requested: t0, Requests: 3, Updated: t0}))
	f.Add(encodeMementos([]cache.StoredMemento{{URIM: "https://a.example/1", Datetime: t0, Archive: "ia", Rel: "memento", Type: "text/html"}}))
	f.Add(encodeJob(&job{Job: cache.Job{ID: 7, URIR: "http://e.org/", Priority: 1, Enqueued: t0, Worker: "w"}}))
	f.Add([]byte{1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		if i, err := decodeInfo(cache.URIRKey{}, b); err == nil {
			if got := encodeInfo(&i); !bytes.Equal(got, b) {
				t.Errorf("info %x re-encodes as %x", b, got)
			}
		}
		if ms, err := decodeMementos(b); err == nil {
			if got := encodeMementos(ms); !bytes.Equal(got, b) {
				t.Errorf("mementos %x re-encode as %x", b, got)
			}
		}
		if j, err := decodeJob(7, b); err == nil {
			if got := encodeJob(&j); !bytes.Equal(got, b) {
				t.Errorf("job %x re-encodes as %x", b, got)
			}
		}
	})
}
