package boltcache

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/mementokit/mementokit/cache"
)

// Record formats. Every value starts with a format byte, so that a later
// version can read older files.
//
// info (format 1):
//
//	1 | status u8 | requested T | requests uvarint | updated T | urir S
//
// mementos (format 1):
//
//	1 | n uvarint | n × (urim S | datetime T | archive S | rel S | type S)
//
// job (format 1):
//
//	1 | key [16] | priority u8 | enqueued T | claimed T | completed T | urir S | worker S
//
// where S is a uvarint length followed by the bytes and T is a uvarint:
// 0 for the zero time, else seconds since cache.MinTime plus 1 (see secs).
const formatV1 = 1

var errCorrupt = errors.New("corrupt record")

// secs maps a time to the sortable, non-negative number used in records and
// index keys: 0 for the zero time, else whole seconds since MinTime plus 1.
func secs(t time.Time) uint64 {
	if t.IsZero() {
		return 0
	}
	return uint64(t.Unix()-cache.MinTime.Unix()) + 1
}

var maxSecs = secs(cache.MaxTime)

func fromSecs(s uint64) time.Time {
	if s == 0 {
		return time.Time{}
	}
	return time.Unix(int64(s-1)+cache.MinTime.Unix(), 0).UTC()
}

type encoder struct{ b []byte }

func (e *encoder) byte(c byte)      { e.b = append(e.b, c) }
func (e *encoder) uint(v uint64)    { e.b = binary.AppendUvarint(e.b, v) }
func (e *encoder) time(t time.Time) { e.uint(secs(t)) }
func (e *encoder) str(s string) {
	e.uint(uint64(len(s)))
	e.b = append(e.b, s...)
}

// decoder reads a record; the first error sticks and names the byte offset.
type decoder struct {
	b   []byte
	off int
	err error
}

func (d *decoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: byte %d: %s", errCorrupt, d.off, what)
	}
}

func (d *decoder) byte() byte {
	if d.err != nil || d.off >= len(d.b) {
		d.fail("truncated")
		return 0
	}
	d.off++
	return d.b[d.off-1]
}

func (d *decoder) uint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b[d.off:])
	if n <= 0 || n != uvarintLen(v) {
		d.fail("bad varint")
		return 0
	}
	d.off += n
	return v
}

// uvarintLen is the length of v's shortest uvarint encoding, the only one
// the decoder accepts (so that a record has one encoding).
func uvarintLen(v uint64) int {
	n := 1
	for ; v >= 0x80; v >>= 7 {
		n++
	}
	return n
}

func (d *decoder) time() time.Time {
	s := d.uint()
	if s > maxSecs {
		d.fail("time out of range")
		return time.Time{}
	}
	return fromSecs(s)
}

func (d *decoder) str(max int) string {
	n := d.uint()
	if d.err != nil {
		return ""
	}
	if n > uint64(max) || n > uint64(len(d.b)-d.off) {
		d.fail(fmt.Sprintf("string of %d bytes exceeds the record or the limit %d", n, max))
		return ""
	}
	s := string(d.b[d.off : d.off+int(n)])
	d.off += int(n)
	return s
}

func (d *decoder) end() error {
	if d.err == nil && d.off != len(d.b) {
		d.fail(fmt.Sprintf("%d trailing bytes", len(d.b)-d.off))
	}
	return d.err
}

// encodeInfo writes an entry's Info (its Key is not stored: it is the bolt
// key).
func encodeInfo(i *cache.Info) []byte {
	enc := encoder{b: make([]byte, 0, 32+len(i.URIR))}
	enc.byte(formatV1)
	enc.byte(byte(i.Status))
	enc.time(i.Requested)
	enc.uint(uint64(i.Requests))
	enc.time(i.Updated)
	enc.str(i.URIR)
	return enc.b
}

// decodeInfo parses a record written by encodeInfo. Any damage gives an
// error wrapping errCorrupt with the byte offset; it never panics.
func decodeInfo(key cache.URIRKey, b []byte) (cache.Info, error) {
	d := decoder{b: b}
	var i cache.Info
	if f := d.byte(); f != formatV1 && d.err == nil {
		d.fail(fmt.Sprintf("unknown format %d", f))
	}
	i.Key = key
	i.Status = cache.Status(d.byte())
	if i.Status > cache.StatusBlocked && d.err == nil {
		d.fail(fmt.Sprintf("unknown status %d", i.Status))
	}
	i.Requested = d.time()
	req := d.uint()
	if req > 1<<62 && d.err == nil {
		d.fail("request count out of range")
	}
	i.Requests = int64(req)
	i.Updated = d.time()
	i.URIR = d.str(cache.MaxURILen)
	if err := d.end(); err != nil {
		return cache.Info{}, err
	}
	return i, nil
}

// encodeMementos writes an entry's mementos.
func encodeMementos(ms []cache.StoredMemento) []byte {
	n := 8
	for _, m := range ms {
		n += 24 + len(m.URIM) + len(m.Archive) + len(m.Rel) + len(m.Type)
	}
	enc := encoder{b: make([]byte, 0, n)}
	enc.byte(formatV1)
	enc.uint(uint64(len(ms)))
	for _, m := range ms {
		enc.str(m.URIM)
		enc.time(m.Datetime)
		enc.str(m.Archive)
		enc.str(m.Rel)
		enc.str(m.Type)
	}
	return enc.b
}

// decodeMementos parses a record written by encodeMementos. Any damage gives
// an error wrapping errCorrupt with the byte offset; it never panics, and
// allocates as the mementos decode (no more than len(b) allows, and no
// more than the record's valid prefix holds).
func decodeMementos(b []byte) ([]cache.StoredMemento, error) {
	d := decoder{b: b}
	if f := d.byte(); f != formatV1 && d.err == nil {
		d.fail(fmt.Sprintf("unknown format %d", f))
	}
	n := d.uint()
	if d.err != nil {
		return nil, d.err
	}
	// Each memento takes at least 5 bytes: bound n by what is left.
	if n > uint64(len(b)-d.off)/5 {
		d.fail(fmt.Sprintf("%d mementos cannot fit in %d bytes", n, len(b)-d.off))
		return nil, d.err
	}
	if n == 0 {
		return nil, d.end()
	}
	// len(b) comes from a page too: the slice grows with what decodes
	// rather than with the count the record claims.
	ms := make([]cache.StoredMemento, 0, min(n, 1<<16))
	for i := uint64(0); i < n && d.err == nil; i++ {
		var m cache.StoredMemento
		m.URIM = d.str(cache.MaxURILen)
		m.Datetime = d.time()
		m.Archive = d.str(cache.MaxFieldLen)
		m.Rel = d.str(cache.MaxFieldLen)
		m.Type = d.str(cache.MaxFieldLen)
		ms = append(ms, m)
	}
	if err := d.end(); err != nil {
		return nil, err
	}
	return ms, nil
}

type job struct {
	cache.Job
	completed time.Time
}

func encodeJob(j *job) []byte {
	enc := encoder{b: make([]byte, 0, 48+len(j.URIR)+len(j.Worker))}
	enc.byte(formatV1)
	enc.b = append(enc.b, j.Key[:]...)
	enc.byte(byte(j.Priority))
	enc.time(j.Enqueued)
	enc.time(j.Claimed)
	enc.time(j.completed)
	enc.str(j.URIR)
	enc.str(j.Worker)
	return enc.b
}

func decodeJob(id uint64, b []byte) (job, error) {
	d := decoder{b: b}
	var j job
	if f := d.byte(); f != formatV1 && d.err == nil {
		d.fail(fmt.Sprintf("unknown format %d", f))
	}
	j.ID = int64(id)
	for i := range j.Key {
		j.Key[i] = d.byte()
	}
	j.Priority = cache.Priority(d.byte())
	j.Enqueued = d.time()
	j.Claimed = d.time()
	j.completed = d.time()
	j.URIR = d.str(cache.MaxURILen)
	j.Worker = d.str(cache.MaxFieldLen)
	if err := d.end(); err != nil {
		return job{}, err
	}
	return j, nil
}
