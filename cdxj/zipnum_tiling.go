package cdxj

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// tiling checks, entry by entry along a walk of the secondary index, that
// the blocks of each part tile it (see Cluster): a part's blocks are
// listed in one run, the first at offset 0, each starting where the one
// before it ends, the last ending at the part file's size. A missing
// .idx line leaves bytes of a part in no block; without this check their
// lines would be lost without a word.
type tiling struct {
	c         *Cluster
	fromStart bool // the walk began at the first entry of the index
	sizes     bool // check each part's last block against the part's size
	last      IdxEntry
	has       bool
	listed    map[string]bool // the parts seen, on a walk from the start
	// part, size and path are the part of the last entry, its file's size
	// and the path it was opened from, when sizes.
	part, path string
	size       int64
}

// next checks entry e, which follows the entries given before it.
func (t *tiling) next(e IdxEntry) error {
	last, has := t.last, t.has
	t.last, t.has = e, true
	if t.fromStart && t.sizes {
		if t.listed == nil {
			t.listed = map[string]bool{}
		}
		t.listed[e.Part] = true
	}
	if t.sizes {
		if err := t.inPart(e); err != nil {
			return err
		}
	}
	if has && e.Part == last.Part {
		if end := last.Offset + last.Length; e.Offset != end {
			return t.c.idxError(e.At, fmt.Errorf("%w: the block at %s:%d+%d follows the block at %s:%d+%d, which ends at byte %d: bytes %d to %d of the part are in no block listed (a missing or wrong line in the secondary index)",
				ErrZipNum, e.Part, e.Offset, e.Length, last.Part, last.Offset, last.Length, end, min(end, e.Offset), max(end, e.Offset)))
		}
		return nil
	}
	if has {
		if err := t.partEnd(last); err != nil {
			return err
		}
	}
	if (has || t.fromStart) && e.Offset != 0 {
		return t.c.idxError(e.At, fmt.Errorf("%w: the block at %s:%d+%d is the first listed of its part, but it starts at byte %d: bytes 0 to %d of the part are in no block listed (a missing line in the secondary index)",
			ErrZipNum, e.Part, e.Offset, e.Length, e.Offset, e.Offset))
	}
	return nil
}

// end checks the last entry of a walk that read the index to its end
// and, for a walk of the whole index, that no part holding data went
// unlisted.
func (t *tiling) end() error {
	if t.has {
		if err := t.partEnd(t.last); err != nil {
			return err
		}
	}
	if t.fromStart && t.sizes && t.has {
		return t.c.unlisted(t.listed)
	}
	return nil
}

// partEnd checks that e, the last block listed of its part, ends at the
// part file's size.
func (t *tiling) partEnd(e IdxEntry) error {
	if !t.sizes {
		return nil
	}
	if err := t.inPart(e); err != nil {
		return err
	}
	size, path := t.size, t.path
	if end := e.Offset + e.Length; end != size {
		return t.c.idxError(e.At, fmt.Errorf("%w: the block at %s:%d+%d is the last listed of its part and ends at byte %d, but the part file %s has %d bytes (a missing line in the secondary index, or a part cut short)",
			ErrZipNum, e.Part, e.Offset, e.Length, end, path, size))
	}
	return nil
}

// inPart checks that block e is no longer than the limit and ends within
// its part file (whose size it
// reads once per part), so that a part cut short is reported at the first
// block it cuts, by a walk as by a plan, before any block is read.
func (t *tiling) inPart(e IdxEntry) error {
	if t.path == "" || e.Part != t.part {
		size, path, err := t.c.partSize(e.Part)
		if err != nil {
			return partError(e.Part, err)
		}
		t.part, t.size, t.path = e.Part, size, path
	}
	if e.Length > t.c.maxBlock() {
		return t.c.blockError(e, errBlockLimit(t.c.maxBlock()))
	}
	if end := e.Offset + e.Length; end > t.size {
		return t.c.blockError(e, fmt.Errorf("it ends at byte %d, past the end of the part file %s, which has %d bytes (a part cut short, or a wrong offset or length in the secondary index)", end, t.path, t.size))
	}
	return nil
}

// errBlockLimit is the cause of a block error for a block listed longer
// than max bytes (Cluster.MaxBlockSize).
func errBlockLimit(max int64) error {
	return fmt.Errorf("its length is more than the limit of %d bytes", max)
}

// blockError is the error of the block e that cannot be read as the
// secondary index lists it, built here alone so that a walk, a query and
// a plan say it alike: it names the index file and the block's line, the
// part, the block's byte offset and length, and the cause ("cdxj:
// cluster.idx line 7 (byte 461): malformed ZipNum cluster: block at
// cdx-00000.gz:2563+658: unexpected EOF").
func (c *Cluster) blockError(e IdxEntry, cause error) error {
	return c.idxError(e.At, fmt.Errorf("%w: block at %s:%d+%d: %v", ErrZipNum, e.Part, e.Offset, e.Length, cause))
}

// idxError places err on the secondary-index line at byte offset at:
// "FILE line N (byte at): err".
func (c *Cluster) idxError(at int64, err error) error {
	return fmt.Errorf("cdxj: %s line %d (byte %d): %w", c.idxPath, c.idxLineNumber(at), at, unprefixed{err})
}

// idxLineNumber returns the 1-based number of the secondary-index line
// that starts at byte offset at, counting the line ends before it (read
// only when an error names the line).
func (c *Cluster) idxLineNumber(at int64) int64 {
	n := int64(1)
	buf := make([]byte, 64<<10)
	sr := io.NewSectionReader(c.idx, 0, at)
	for {
		k, err := sr.Read(buf)
		n += int64(bytes.Count(buf[:k], newline))
		if err != nil {
			return n
		}
	}
}

// partSize returns the size in bytes of part name's file, and the path it
// was opened from.
func (c *Cluster) partSize(name string) (int64, string, error) {
	f, err := c.part(name)
	if err != nil {
		return 0, "", err
	}
	st, err := f.Stat()
	if err != nil {
		return 0, "", err
	}
	return st.Size(), f.Name(), nil
}

// unlisted returns an error for a part of the cluster that holds data but
// none of whose blocks the secondary index lists (listed holds the parts
// it lists), nil when there is none. The parts are those of the .loc
// file; without one, the !meta header's "filename" and the files beside
// the index named like a listed part, PREFIX-DIGITS.gz for a listed
// PREFIX-DIGITS.gz (the Common Crawl layout and ClusterWriter's), or,
// when none is listed, like the index: NAME-DIGITS.gz beside NAME.idx,
// cdx-DIGITS.gz beside cluster.idx. A part of the .loc file is checked at
// its first local location that exists; one with only remote locations,
// whose size is not read, counts as holding data.
func (c *Cluster) unlisted(listed map[string]bool) error {
	what := func(part string) string {
		if len(listed) == 0 {
			return fmt.Sprintf("cluster %s lists no blocks, but its part %s", c.idxPath, part)
		}
		return fmt.Sprintf("cluster %s lists no block of its part %s, which", c.idxPath, part)
	}
	var paths []string
	if len(c.loc) > 0 {
		for name, locs := range c.loc {
			if listed[name] {
				continue
			}
			remote, local := "", false
			for _, p := range locs {
				if strings.Contains(p, "://") {
					remote = p
					continue
				}
				if _, err := os.Stat(p); err == nil {
					paths, local = append(paths, p), true
					break
				}
			}
			if remote != "" && !local {
				return fmt.Errorf("%w: %s is at the remote location %s (its size is not read)", ErrZipNum, what(name), remote)
			}
		}
	} else {
		prefixes := map[string]bool{}
		for name := range listed {
			if p, ok := partPrefix(name); ok {
				prefixes[p] = true
			}
		}
		if len(listed) == 0 {
			base := strings.TrimSuffix(filepath.Base(c.idxPath), filepath.Ext(c.idxPath))
			prefixes[base+"-"] = true
			if base == "cluster" {
				prefixes["cdx-"] = true
			}
		}
		if c.defaultPart != "" && !listed[c.defaultPart] {
			paths = append(paths, filepath.Join(c.dir, c.defaultPart))
		}
		ents, err := os.ReadDir(c.dir)
		if err != nil {
			return fmt.Errorf("%w: %s: listing its folder for unlisted parts: %v", ErrZipNum, c.idxPath, err)
		}
		for _, e := range ents {
			if p, ok := partPrefix(e.Name()); ok && prefixes[p] && !listed[e.Name()] {
				paths = append(paths, filepath.Join(c.dir, e.Name()))
			}
		}
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("%w: %s cannot be checked: %v", ErrZipNum, what(p), err)
		}
		if st.Mode().IsRegular() && st.Size() > 0 {
			return fmt.Errorf("%w: %s holds %d bytes", ErrZipNum, what(p), st.Size())
		}
	}
	return nil
}

// partPrefix returns "PREFIX-" of a part file name "PREFIX-DIGITS.gz".
func partPrefix(name string) (string, bool) {
	stem, ok := strings.CutSuffix(name, ".gz")
	i := strings.LastIndexByte(stem, '-')
	if !ok || i < 0 || !idxDigits([]byte(stem[i+1:])) {
		return "", false
	}
	return stem[:i+1], true
}
