// Package atomicfile writes the output files of every tool and library of
// the module (maps, indexes, summaries, charts, downloaded maps) so that a
// reader never sees a partial file and an interrupted run, even one killed
// with SIGKILL, leaves nothing behind.
//
// [Create] writes to a file beside the target that has no name yet where
// the system allows it (O_TMPFILE on Linux: the file vanishes with the
// process), and [File.Commit] gives it the target's name in one rename.
// Elsewhere, and on file systems without O_TMPFILE, the file is named
// ".NAME.tmp-PID-RANDOM" in the target's folder; Create removes the stale
// ones of that name (their process is gone, or they are older than a day)
// before it starts, and the ".NAME.tmp*" files of earlier versions of the
// module once they are a day old. Nothing else is ever removed.
//
// [Scratch] makes the temporary files a run needs (sorted runs, spills):
// files without a name, which vanish with the process.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Options sets up [Create]; nil means the defaults.
type Options struct {
	// Perm is the mode of the committed file. 0 keeps the mode of the
	// regular file being replaced, else gives 0644: outputs are meant to
	// be read by others (a replay server, an aggregator), not the
	// owner-only mode of a temporary file.
	Perm fs.FileMode
	// NoSync makes Commit rename the file without syncing it first: for
	// the intermediate files of a run (a pipeline's partial maps), read
	// back and removed by the same run, whose loss in a crash loses
	// nothing the run would not redo. Syncing 142 MB costs about 0.2 s of
	// system CPU; a file removed before the kernel writes it back is
	// never written at all.
	NoSync bool
}

// StaleAge is the age past which a temporary file of this package's
// naming is stale even when a process with its PID is running (the PID
// may have been reused).
const StaleAge = 24 * time.Hour

// File is an output file being written. Write to it, then call Commit;
// Close (safe to defer) abandons it unless Commit succeeded. A File is not
// safe for concurrent use.
type File struct {
	f     *os.File
	path  string // the target
	dir   string
	named string // the temporary name, "" while the file has none
	perm  fs.FileMode
	sync  bool // Commit syncs the file (not Options.NoSync)
	done  bool
}

// Create starts writing the file path (see the package documentation). It
// fails when the target's folder cannot be written, or when path names
// something other than a regular file (a device such as /dev/null, a
// pipe, a folder, or a symbolic link to one); the error names path.
func Create(path string, o *Options) (*File, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if base == "" {
		return nil, fmt.Errorf("create %s: no file name", path)
	}
	st, statErr := os.Stat(path)
	if statErr == nil && !st.Mode().IsRegular() {
		// Renaming over it would replace a device, a pipe or a folder (or
		// the link to one) with a regular file.
		return nil, fmt.Errorf("create %s: not a regular file (%s): give the path of a file", path, st.Mode().Type())
	}
	perm := fs.FileMode(0o644)
	if o != nil && o.Perm != 0 {
		perm = o.Perm.Perm()
	} else if statErr == nil {
		perm = st.Mode().Perm()
	}
	CleanStale(dir, base)
	af := &File{path: path, dir: dir, perm: perm, sync: o == nil || !o.NoSync}
	if !forceNamed {
		if f, err := openUnnamed(dir); err == nil {
			af.f = f
			return af, nil
		}
	}
	f, name, err := createNamed(dir, base)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	af.f, af.named = f, name
	return af, nil
}

// syncFile syncs a file before Commit renames it (tests count the calls).
var syncFile = (*os.File).Sync

// tempPrefix is the start of the temporary names of target base.
func tempPrefix(base string) string { return "." + base + ".tmp" }

// createNamed creates ".BASE.tmp-PID-RANDOM" in dir.
func createNamed(dir, base string) (*os.File, string, error) {
	f, err := os.CreateTemp(dir, tempPrefix(base)+"-"+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return nil, "", err
	}
	return f, f.Name(), nil
}

// Write writes to the temporary file; its error is the *os.File's (an
// *fs.PathError naming the temporary file).
func (f *File) Write(p []byte) (int, error) { return f.f.Write(p) }

// ReadFrom writes what r holds to the temporary file: the *os.File's
// ReadFrom, which has the kernel copy it (copy_file_range(2)) when r is a
// file, or an io.LimitedReader of one, so that a bufio.Writer's ReadFrom
// over a File copies a file without reading it into memory. Its errors
// are r's and the *os.File's.
func (f *File) ReadFrom(r io.Reader) (int64, error) { return f.f.ReadFrom(r) }

// WriteString writes s to the temporary file, with Write's errors.
func (f *File) WriteString(s string) (int, error) { return f.f.WriteString(s) }

// Name returns the target path (not the temporary file's).
func (f *File) Name() string { return f.path }

// OS returns the open temporary file, for callers that need more than
// writes (ReadAt, Seek, Stat). Closing it is Close's job.
func (f *File) OS() *os.File { return f.f }

// Commit syncs the file (unless Options.NoSync), gives it its mode and
// renames it onto the target, replacing any file there, then syncs the
// folder (unless Options.NoSync). On error the temporary file is removed and the
// target is untouched; the error names the target. Commit after Commit or
// Close returns an error.
func (f *File) Commit() (err error) {
	if f.done {
		return fmt.Errorf("write %s: already committed or abandoned", f.path)
	}
	f.done = true
	defer func() {
		if err != nil {
			f.f.Close()
			if f.named != "" {
				os.Remove(f.named)
			}
			err = fmt.Errorf("write %s: %w", f.path, err)
		}
	}()
	if err := f.f.Chmod(f.perm); err != nil {
		return err
	}
	if f.sync {
		if err := syncFile(f.f); err != nil {
			return err
		}
	}
	if f.named == "" {
		name, err := linkUnnamed(f.f, f.dir, filepath.Base(f.path))
		if err != nil {
			return err
		}
		f.named = name
	}
	if err := f.f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.named, f.path); err != nil {
		return err
	}
	f.named = ""
	if f.sync {
		syncDir(f.dir)
	}
	return nil
}

// Close abandons the file unless it was committed: it is closed and
// removed, and the target is untouched. After Commit it does nothing.
func (f *File) Close() error {
	if f.done {
		return nil
	}
	f.done = true
	err := f.f.Close()
	if f.named != "" {
		if rerr := os.Remove(f.named); err == nil {
			err = rerr
		}
	}
	return err
}

// Write creates path with write (see [Create], with the default
// [Options]): the file appears complete or not at all. On any error the
// target is untouched and the error names path.
func Write(path string, write func(w io.Writer) error) error {
	f, err := Create(path, nil)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := write(f); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Commit()
}

// Scratch returns a new temporary file for reading and writing in dir (""
// means os.TempDir()) that has no name, so that it vanishes when it is
// closed or the process ends, however it ends. Where a file cannot be made
// without a name (no O_TMPFILE), it is created as pattern (as
// os.CreateTemp) and its name removed at once. Close it when done. Its
// errors are os.CreateTemp's or os.Remove's (*fs.PathError, naming the
// file or dir); when the name cannot be removed the file is closed.
func Scratch(dir, pattern string) (*os.File, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	if f, err := openUnnamed(dir); err == nil {
		return f, nil
	}
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// CleanStale removes from dir the stale temporary files of target base
// that this package (or an earlier version of the module) left behind: a
// ".BASE.tmp-PID-RANDOM" file whose process is gone or that is older than
// [StaleAge], and a ".BASE.tmp…" file of another form once it is older than
// StaleAge. Only regular files are removed. It returns the names removed;
// errors are ignored (a file that cannot be removed stays).
func CleanStale(dir, base string) []string {
	prefix := tempPrefix(base)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var removed []string
	now := time.Now()
	for _, e := range ents {
		name := e.Name()
		rest, ok := strings.CutPrefix(name, prefix)
		if !ok || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		stale := now.Sub(info.ModTime()) > StaleAge
		if pid, ok := pidOf(rest); ok && !stale {
			stale = pid != os.Getpid() && !processAlive(pid)
		}
		if stale && os.Remove(filepath.Join(dir, name)) == nil {
			removed = append(removed, name)
		}
	}
	return removed
}

// pidOf parses "-PID-RANDOM", the rest of a temporary name after its
// prefix.
func pidOf(rest string) (int, bool) {
	s, ok := strings.CutPrefix(rest, "-")
	if !ok {
		return 0, false
	}
	p, r, ok := strings.Cut(s, "-")
	if !ok || r == "" {
		return 0, false
	}
	pid, err := strconv.Atoi(p)
	if err != nil || pid <= 0 {
		return 0, false
	}
	for _, c := range r {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	return pid, true
}

// forceNamed makes Create use named temporary files (for tests of the
// fallback).
var forceNamed bool

// errNoUnnamed is returned where files without a name are not supported.
var errNoUnnamed = errors.New("unnamed files not supported")
