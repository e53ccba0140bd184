package boltcache

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"time"
)

// ErrDamaged reports a cache file whose pages do not hold together: a
// page damaged on disk, a file rewritten under the process, an
// interrupted copy. Open refuses such a file (bbolt, which maps the file
// and trusts the lengths written in its pages, would crash the process
// reading it); the error, a *cache.Error wrapping ErrDamaged, names the
// file and the damage. The cache holds only search results and the
// refresh queue: delete the file (or move it aside) and it is rebuilt by
// searching.
var ErrDamaged = errors.New("damaged cache file")

// errCheckTime reports a check that did not finish within
// Options.CheckTimeout.
var errCheckTime = errors.New("the consistency check did not finish")

// damaged builds Open's error for a damaged file.
func damaged(path string, err error) error {
	return fmt.Errorf("%s: %w: %v; the file holds only cached search results and the refresh queue: delete it (or move it aside) and the cache is rebuilt by searching", path, ErrDamaged, err)
}

// boltMeta is what Open reads of the newest valid meta page.
type boltMeta struct {
	pageSize uint32
	root     uint64 // root bucket's page
	freelist uint64 // freelist page, noFreelist when not synced
	pgid     uint64 // high-water mark: pages [0, pgid) are in use or free
	txid     uint64
}

const (
	pageHeader    = 16 // id u64, flags u16, count u16, overflow u32
	elemSize      = 16 // leaf: flags, pos, ksize, vsize u32; branch: pos, ksize u32, pgid u64
	branchFlag    = 0x01
	leafFlag      = 0x02
	freelistFlag  = 0x10
	bucketElem    = 0x01 // a leaf element that is a sub-bucket
	bucketHeader  = 16   // root u64, sequence u64; an inline page follows when root is 0
	noFreelist    = ^uint64(0)
	maxTreeDepth  = 64
	checkInterval = 256 // pages between deadline checks
)

// readMeta returns the newest valid meta page of the file at f (bbolt's
// format: a 16-byte page header, then magic, version, page size, flags,
// root bucket (16 bytes), freelist page, high-water page id, transaction id
// and an FNV-1a 64 checksum of the fields before it, in the machine's byte
// order); ok is false when neither meta page is valid.
func readMeta(f *os.File) (m boltMeta, ok bool) {
	const hdr, sumAt = pageHeader, pageHeader + 56
	read := func(off int64) (boltMeta, bool) {
		var b [sumAt + 8]byte
		if _, err := f.ReadAt(b[:], off); err != nil {
			return boltMeta{}, false
		}
		e := binary.NativeEndian
		h := fnv.New64a()
		h.Write(b[hdr:sumAt])
		if e.Uint32(b[hdr:]) != boltMagic || e.Uint32(b[hdr+4:]) != 2 || e.Uint64(b[sumAt:]) != h.Sum64() {
			return boltMeta{}, false
		}
		return boltMeta{pageSize: e.Uint32(b[hdr+8:]), root: e.Uint64(b[hdr+16:]), freelist: e.Uint64(b[hdr+32:]),
			pgid: e.Uint64(b[hdr+40:]), txid: e.Uint64(b[hdr+48:])}, true
	}
	m0, ok0 := read(0)
	off1 := int64(os.Getpagesize())
	if ok0 {
		off1 = int64(m0.pageSize)
	}
	m1, ok1 := read(off1)
	switch {
	case ok0 && (!ok1 || m0.txid >= m1.txid):
		return m0, true
	case ok1:
		return m1, true
	}
	return boltMeta{}, false
}

// verifyPages walks every page reachable from the meta page m, reading
// the file with ReadAt (never through bbolt's mapping, so that no length
// read from a page is trusted before it is checked): each page id below
// the high-water mark, its extent (overflow included) within it, the page
// id written in its header, its type (branch or leaf), its element count
// and every element's key and value within the page, branch children and
// sub-buckets (inline or not) recursively, no page reached twice, at most
// 64 levels; and the freelist page. It stops with an error naming the
// first damage found, or errCheckTime past deadline.
func verifyPages(f *os.File, size int64, m boltMeta, deadline time.Time) error {
	if time.Now().After(deadline) {
		return errCheckTime
	}
	v := &verifier{f: f, ps: uint64(m.pageSize), hwm: m.pgid, deadline: deadline,
		seen: make([]uint64, m.pgid/64+1)}
	if v.ps < 512 || v.ps > 1<<20 || v.ps&(v.ps-1) != 0 {
		return fmt.Errorf("meta page: page size %d", v.ps)
	}
	if v.hwm < 2 || v.hwm > uint64(size)/v.ps {
		return fmt.Errorf("meta page: %d pages of %d bytes in a file of %d bytes", v.hwm, v.ps, size)
	}
	if m.freelist != noFreelist {
		if err := v.freelistPage(m.freelist); err != nil {
			return err
		}
	}
	return v.tree(m.root, 0)
}

type verifier struct {
	f        *os.File
	ps, hwm  uint64
	deadline time.Time
	seen     []uint64 // bit set of pages reached
	pages    int
	bufs     [maxTreeDepth + 2][]byte // one page buffer per tree level
}

// read returns the whole extent of page id (header checked), in the
// buffer of tree level depth (valid until the next read at that level).
func (v *verifier) read(id uint64, wantFlags uint16, depth int) ([]byte, error) {
	if v.pages++; v.pages%checkInterval == 0 && time.Now().After(v.deadline) {
		return nil, errCheckTime
	}
	if id < 2 || id >= v.hwm {
		return nil, fmt.Errorf("page %d: outside the file's %d pages", id, v.hwm)
	}
	var h [pageHeader]byte
	if _, err := v.f.ReadAt(h[:], int64(id*v.ps)); err != nil {
		return nil, fmt.Errorf("page %d: %w", id, err)
	}
	e := binary.NativeEndian
	if got := e.Uint64(h[:]); got != id {
		return nil, fmt.Errorf("page %d: its header says page %d", id, got)
	}
	flags := e.Uint16(h[8:])
	if wantFlags == freelistFlag && flags != freelistFlag || wantFlags != freelistFlag && flags != branchFlag && flags != leafFlag {
		return nil, fmt.Errorf("page %d: type flags %#x where a %s page should be", id, flags, flagName(wantFlags))
	}
	overflow := uint64(e.Uint32(h[12:]))
	if overflow >= v.hwm-id {
		return nil, fmt.Errorf("page %d: %d overflow pages run past the file's %d pages", id, overflow, v.hwm)
	}
	for p := id; p <= id+overflow; p++ {
		if v.seen[p/64]&(1<<(p%64)) != 0 {
			return nil, fmt.Errorf("page %d: reached twice", p)
		}
		v.seen[p/64] |= 1 << (p % 64)
	}
	n := (overflow + 1) * v.ps
	if uint64(cap(v.bufs[depth])) < n {
		v.bufs[depth] = make([]byte, n)
	}
	b := v.bufs[depth][:n]
	if _, err := v.f.ReadAt(b, int64(id*v.ps)); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("page %d: %w", id, err)
	}
	return b, nil
}

func flagName(f uint16) string {
	switch f {
	case freelistFlag:
		return "freelist"
	case branchFlag | leafFlag:
		return "branch or leaf"
	}
	return fmt.Sprintf("%#x", f)
}

func (v *verifier) freelistPage(id uint64) error {
	b, err := v.read(id, freelistFlag, 0)
	if err != nil {
		return fmt.Errorf("freelist: %w", err)
	}
	e := binary.NativeEndian
	start, count := uint64(pageHeader), uint64(e.Uint16(b[10:]))
	if count == 0xffff {
		count, start = e.Uint64(b[pageHeader:]), pageHeader+8
	}
	if count > (uint64(len(b))-start)/8 {
		return fmt.Errorf("freelist page %d: %d ids cannot fit in %d bytes", id, count, len(b))
	}
	for i := uint64(0); i < count; i++ {
		if fid := e.Uint64(b[start+8*i:]); fid < 2 || fid >= v.hwm {
			return fmt.Errorf("freelist page %d: free page %d outside the file's %d pages", id, fid, v.hwm)
		}
	}
	return nil
}

// tree checks the page tree rooted at page id.
func (v *verifier) tree(id uint64, depth int) error {
	if depth > maxTreeDepth {
		return fmt.Errorf("page %d: the tree is deeper than %d levels", id, maxTreeDepth)
	}
	b, err := v.read(id, branchFlag|leafFlag, depth)
	if err != nil {
		return err
	}
	return v.elements(id, b, depth)
}

// elements checks the elements of one page (a file page, or an inline
// bucket's page held in a value) and descends.
func (v *verifier) elements(id uint64, p []byte, depth int) error {
	e := binary.NativeEndian
	if len(p) < pageHeader {
		return fmt.Errorf("page %d: %d bytes, shorter than a page header", id, len(p))
	}
	flags, count := e.Uint16(p[8:]), uint64(e.Uint16(p[10:]))
	if flags != branchFlag && flags != leafFlag {
		return fmt.Errorf("page %d: type flags %#x", id, flags)
	}
	if pageHeader+count*elemSize > uint64(len(p)) {
		return fmt.Errorf("page %d: %d elements cannot fit in %d bytes", id, count, len(p))
	}
	for i := uint64(0); i < count; i++ {
		at := pageHeader + i*elemSize
		el := p[at : at+elemSize]
		if flags == branchFlag {
			pos, ksize, child := uint64(e.Uint32(el)), uint64(e.Uint32(el[4:])), e.Uint64(el[8:])
			if at+pos+ksize > uint64(len(p)) {
				return fmt.Errorf("page %d: element %d: a key of %d bytes at %d runs past the page's %d bytes", id, i, ksize, at+pos, len(p))
			}
			if err := v.tree(child, depth+1); err != nil {
				return err
			}
			continue
		}
		ef, pos, ksize, vsize := e.Uint32(el), uint64(e.Uint32(el[4:])), uint64(e.Uint32(el[8:])), uint64(e.Uint32(el[12:]))
		if at+pos+ksize+vsize > uint64(len(p)) {
			return fmt.Errorf("page %d: element %d: a key of %d and a value of %d bytes at %d run past the page's %d bytes", id, i, ksize, vsize, at+pos, len(p))
		}
		if ef&bucketElem == 0 {
			continue
		}
		val := p[at+pos+ksize : at+pos+ksize+vsize]
		if len(val) < bucketHeader {
			return fmt.Errorf("page %d: element %d: a bucket of %d bytes", id, i, len(val))
		}
		if root := e.Uint64(val); root != 0 {
			if err := v.tree(root, depth+1); err != nil {
				return err
			}
			continue
		}
		if err := v.elements(id, val[bucketHeader:], depth+1); err != nil {
			return fmt.Errorf("inline bucket: %w", err)
		}
	}
	return nil
}
