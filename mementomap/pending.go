package mementomap

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/mementokit/mementokit/internal/atomicfile"
)

// pendingWriter is the output of Compact. Bytes are addressed by their
// logical offset in the output; the region [flushed, end) is still pending
// (an open node may yet replace it by a roll-up line) and can be cut back
// with truncate. Pending bytes live in memory up to memLimit, then in a
// temporary spill file, so memory stays bounded whatever the size of the
// open subtrees. This plays the part of the reference tool's seek-back on
// its output file, without needing a seekable output.
type pendingWriter struct {
	w       *bufio.Writer
	name    string // the final writer's name, for errors
	flushed int64  // bytes handed to w

	// spill holds logical [spillBase, spillBase+spillLen).
	spill     *os.File
	spillBase int64
	spillLen  int64
	tempDir   string

	// mem holds logical [memBase, memBase+len(mem)-memHead) as mem[memHead:].
	mem      []byte
	memHead  int
	memBase  int64
	memLimit int64

	maxPending int64 // the largest pending region seen, for statistics
	lines      int64 // newlines handed to w
}

func newPendingWriter(w io.Writer, memLimit int64, tempDir string) *pendingWriter {
	bw, ok := w.(*bufio.Writer)
	if !ok {
		bw = bufio.NewWriterSize(w, 1<<16)
	}
	return &pendingWriter{w: bw, memLimit: memLimit, tempDir: tempDir}
}

// end returns the logical offset just past the last byte written.
func (p *pendingWriter) end() int64 { return p.memBase + int64(len(p.mem)-p.memHead) }

// writeLine appends b and a newline; a spill, if needed, waits for the next
// write.
func (p *pendingWriter) writeLine(b []byte) {
	p.mem = append(p.mem, b...)
	p.mem = append(p.mem, '\n')
}

func (p *pendingWriter) write(b []byte) error {
	p.mem = append(p.mem, b...)
	return nil
}

// spillMem moves the pending bytes held in memory to the spill file.
func (p *pendingWriter) spillMem() error {
	if p.spill == nil {
		f, err := atomicfile.Scratch(p.tempDir, "mementomap-compact-*.spill") // no name: gone with the process
		if err != nil {
			return fmt.Errorf("mementomap: spill file: %w", err)
		}
		p.spill = f
		p.spillBase = p.memBase
		p.spillLen = 0
	}
	if p.spillLen == 0 {
		p.spillBase = p.memBase
	}
	data := p.mem[p.memHead:]
	if _, err := p.spill.WriteAt(data, p.spillLen); err != nil {
		return fmt.Errorf("mementomap: spill file: %w", err)
	}
	p.spillLen += int64(len(data))
	p.memBase += int64(len(data))
	p.mem = p.mem[:0]
	p.memHead = 0
	return nil
}

// truncate cuts the output back to logical offset off, which must not be
// before the flushed offset.
func (p *pendingWriter) truncate(off int64) {
	if off >= p.memBase {
		p.mem = p.mem[:p.memHead+int(off-p.memBase)]
		return
	}
	// Cut into the spill file: memory is emptied.
	p.spillLen = off - p.spillBase
	p.memBase = off
	p.mem = p.mem[:0]
	p.memHead = 0
}

// flush hands every byte before logical offset upTo to the final writer.
func (p *pendingWriter) flush(upTo int64) error {
	if e := p.end(); upTo > e {
		upTo = e
	}
	if pend := p.end() - p.flushed; pend > p.maxPending {
		p.maxPending = pend
	}
	if upTo <= p.flushed {
		return nil
	}
	if p.spillLen > 0 && p.flushed < p.spillBase+p.spillLen {
		stop := min(upTo, p.spillBase+p.spillLen)
		sr := io.NewSectionReader(p.spill, p.flushed-p.spillBase, stop-p.flushed)
		if _, err := io.Copy(lineCounter{p}, sr); err != nil {
			return fmt.Errorf("mementomap: spill file: %w", err)
		}
		p.flushed = stop
		if stop == p.spillBase+p.spillLen {
			p.spillLen = 0
			p.spillBase = p.memBase
		}
	}
	if upTo > p.flushed {
		n := int(upTo - p.flushed)
		if _, err := (lineCounter{p}).Write(p.mem[p.memHead : p.memHead+n]); err != nil {
			return err
		}
		p.memHead += n
		p.memBase += int64(n)
		p.flushed = upTo
		if p.memHead == len(p.mem) {
			p.mem = p.mem[:0]
			p.memHead = 0
		} else if p.memHead > 1<<20 && p.memHead > len(p.mem)/2 {
			k := copy(p.mem, p.mem[p.memHead:])
			p.mem = p.mem[:k]
			p.memHead = 0
		}
	}
	return nil
}

func (p *pendingWriter) close() error {
	err := p.flush(p.end())
	if ferr := p.w.Flush(); err == nil && ferr != nil {
		err = fmt.Errorf("mementomap: writing %s: %w", p.name, ferr)
	}
	if p.spill != nil {
		_ = p.spill.Close()
		p.spill = nil
	}
	return err
}

// lineCounter writes to the final writer and counts the lines it passes.
type lineCounter struct{ p *pendingWriter }

func (l lineCounter) Write(b []byte) (int, error) {
	l.p.lines += int64(bytes.Count(b, []byte{'\n'}))
	n, err := l.p.w.Write(b)
	if err != nil {
		err = fmt.Errorf("mementomap: writing %s: %w", l.p.name, err)
	}
	return n, err
}

// abort drops the pending output and releases the spill file.
func (p *pendingWriter) abort() {
	p.mem = nil
	if p.spill != nil {
		_ = p.spill.Close()
		p.spill = nil
	}
}
