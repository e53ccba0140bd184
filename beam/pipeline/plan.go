package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/mementomap"
	"github.com/mementokit/mementokit/summary"
)

// DefaultShardBytes is the default Config.ShardBytes: 256 MiB of input
// as stored, about 2 million CDXJ lines of a plain file (more for a
// cluster, whose blocks are gzip-compressed).
const DefaultShardBytes = 256 << 20

// Config says what a pipeline builds from what.
type Config struct {
	// Inputs name the indexes: paths, glob patterns (filepath.Match
	// syntax, expanded in byte-wise order), ZipNum cluster .idx files or
	// folders (the Common Crawl layout: cluster.idx beside cdx-00000.gz
	// ...), or CDX server URLs; whatever cdxj.Open opens. In the order
	// given (a glob's matches in order), they must follow one another in
	// key order, each sorted (see the package documentation).
	Inputs []string

	// MapOutput is the path of the baseline map; required.
	MapOutput string
	// CompactOutput is the path of the compacted map; "" compacts nothing.
	CompactOutput string
	// SummaryOutput is the path of the summary; "" summarizes nothing.
	SummaryOutput string

	// ShardBytes is the size of a part of an input, in bytes as stored (a
	// plain file's bytes, a cluster's compressed blocks); a gzip file or a
	// CDX server is one part whatever its size. 0 means DefaultShardBytes.
	ShardBytes int64
	// CompactPieces bounds the pieces the map is cut into for compaction;
	// 0 means one per part of the build.
	CompactPieces int
	// TempDir is where NewPlan makes the run's own new folder for the
	// shards (os.MkdirTemp; Plan.TempDir names it), which Run removes in
	// any case; nothing else in TempDir is touched. "" makes the folder
	// beside MapOutput.
	TempDir string

	Build   BuildSpec
	Compact CompactSpec
	Summary SummarySpec
}

// BuildSpec is the part of mementomap.BuildOptions that a worker is given
// (plain data, JSON-encoded into the pipeline); its fields mean what they
// mean there.
type BuildSpec struct {
	ArchiveID       string
	Name            string
	StatusClasses   []int
	MIMETypes       []string
	ExcludeRevisits bool
	ExcludeRobots   bool
	Rekey           bool
	SkipBad         bool
	// MemoryLimit bounds each part's in-memory sort chunk (bytes); 0 means
	// mementomap.DefaultSortMemory. A worker's memory is about 3 to 4
	// times this per part it builds at once.
	MemoryLimit int64
	// UpdatedAt is the map's !meta updated_at (kept to the second, in
	// UTC); the zero time means the time NewPlan runs (one instant for
	// every part). Fix it to make runs over the same inputs give the same
	// bytes (mementomap-beam --updated-at).
	UpdatedAt time.Time
}

// Options returns the mementomap.BuildOptions of s, with tempDir for the
// sort's spills.
func (s BuildSpec) Options(tempDir string) *mementomap.BuildOptions {
	at := s.UpdatedAt
	return &mementomap.BuildOptions{
		ArchiveID: s.ArchiveID, Name: s.Name, StatusClasses: s.StatusClasses, MIMETypes: s.MIMETypes,
		ExcludeRevisits: s.ExcludeRevisits, ExcludeRobots: s.ExcludeRobots, Rekey: s.Rekey,
		SkipBad: s.SkipBad, MemoryLimit: s.MemoryLimit, TempDir: tempDir,
		Workers: 1, Now: func() time.Time { return at },
	}
}

// CompactSpec is the part of mementomap.CompactOptions that a worker is
// given; its fields mean what they mean there (zero factors roll up
// everything that has a child: start from DefaultCompactSpec).
type CompactSpec struct {
	HostFactor, PathFactor float64
	HostAlpha, HostK       float64
	PathAlpha, PathK       float64
	HostDepth, PathDepth   int
	MemoryLimit            int64
}

// DefaultCompactSpec is mementomap.DefaultCompactOptions: W_h = W_p = 1.
func DefaultCompactSpec() CompactSpec { return CompactSpec{HostFactor: 1, PathFactor: 1} }

// Validate returns an error naming the first setting of c that no run
// could use: no inputs, no map output, a negative ShardBytes or
// CompactPieces, an HTTP status class outside 1..5, or compaction
// options that mementomap.Compact refuses (mementomap.ErrBadOptions).
// It reads no input; NewPlan calls it first.
func (c Config) Validate() error {
	switch {
	case c.MapOutput == "":
		return errors.New("pipeline: no map output path")
	case len(c.Inputs) == 0:
		return errors.New("pipeline: no inputs")
	case c.ShardBytes < 0:
		return fmt.Errorf("pipeline: shard size %d bytes (0 for the default, or more)", c.ShardBytes)
	case c.CompactPieces < 0:
		return fmt.Errorf("pipeline: compaction pieces %d (0 for one per part, or more)", c.CompactPieces)
	}
	for _, sc := range c.Build.StatusClasses {
		if sc < 1 || sc > 5 {
			return fmt.Errorf("pipeline: HTTP status class %d not in 1..5", sc)
		}
	}
	// Compact checks its options before it reads a byte.
	if _, err := mementomap.Compact(io.Discard, strings.NewReader(""), c.Compact.Options("")); errors.Is(err, mementomap.ErrBadOptions) {
		return fmt.Errorf("pipeline: compaction: %w", err)
	}
	return nil
}

// Options returns the mementomap.CompactOptions of s.
func (s CompactSpec) Options(tempDir string) *mementomap.CompactOptions {
	return &mementomap.CompactOptions{
		HostFactor: s.HostFactor, PathFactor: s.PathFactor,
		HostAlpha: s.HostAlpha, HostK: s.HostK, PathAlpha: s.PathAlpha, PathK: s.PathK,
		HostDepth: s.HostDepth, PathDepth: s.PathDepth, MemoryLimit: s.MemoryLimit, TempDir: tempDir,
	}
}

// SummarySpec is the part of summary.Options that a worker is given.
type SummarySpec struct {
	Keys             summary.KeyMode
	Monthly          bool
	MinYear, MaxYear int
	Compact          bool
	// SkipBad counts malformed index lines in the summary's note instead
	// of failing (summary.Summarizer.ReadIndex's skipBad).
	SkipBad bool
}

// Options returns the summary.Options of s (never Grouped: partial
// summaries are combined).
func (s SummarySpec) Options() *summary.Options {
	return &summary.Options{Keys: s.Keys, Monthly: s.Monthly, MinYear: s.MinYear, MaxYear: s.MaxYear, Compact: s.Compact}
}

// Plan is a pipeline's work: the parts of the inputs and the settings, as
// the launcher made them ([NewPlan]). It is plain data.
type Plan struct {
	Config
	// Files are the inputs, globs expanded, in the order of the parts.
	Files []string
	Parts []cdxj.Part
	// Bytes is the inputs' size as stored, summed (0 for inputs of unknown
	// size: streams, CDX servers).
	Bytes int64
	// Asked counts the parts that ShardBytes asks for, summed over the
	// inputs (each input's size/ShardBytes rounded up, at least 1). Parts
	// can be fewer: a gzip file or a CDX server is one part, and a ZipNum
	// cluster is cut only at the edges of its blocks where the SURT host
	// changes (cdxj.Plan).
	Asked int

	// RemovedStale are the temporary folders of earlier runs on the same
	// output (or in the same TempDir) that NewPlan removed: their runs
	// had ended without removing them (killed), which the folders' locks
	// prove.
	RemovedStale []string

	// legends says that the parts of plain files have the legends in
	// force where they start (setLegends).
	legends bool

	// locks are the output folders, each open and locked (flock, exclusive)
	// from NewPlan to Cleanup; tempLock is TempDir, locked so.
	locks    []*os.File
	tempLock *os.File
}

// NewPlan checks the output paths (each in an existing folder, no two the
// same, none the file of an input: an input file, a file in an input
// folder or a part of an input cluster, compared with os.SameFile after
// symbolic links), expands and opens the inputs of c, cuts them into parts
// (cdxj.Plan, each input into about size/ShardBytes parts, each read with
// its file's leading legend; see [Run] for a legend line that changes the
// layout inside a file) and makes the temporary folder. It then checks
// that each output can be renamed into place from that folder (a file
// made there and renamed into the output's folder), so that an output on
// another file system or in a folder the run may not write fails before
// the run, naming the output. Errors name the input or the output. The
// caller removes p.TempDir (Cleanup; Run calls it).
//
// Each run holds a lock (flock) on its temporary folder until it removes
// it. A folder of that name left by an earlier run on the same output (or
// in the same TempDir) whose lock can be taken belongs to a run that was
// killed; NewPlan removes it and lists it in p.RemovedStale.
//
// The folder of each output is locked (an exclusive flock on the folder)
// from NewPlan until Cleanup, so that a second plan whose outputs share a
// folder with a plan not yet cleaned up, in this process or another on
// the same machine, fails at once with an error naming the folder: two runs
// never write one folder's outputs at the same time. Locks on a network
// file system are as good as its flock.
//
// c is not modified (the plan holds a copy, its defaults filled in); nil
// means the zero Config, which Validate refuses for want of inputs and a
// map output.
func NewPlan(ctx context.Context, c *Config) (*Plan, error) {
	p, err := Preview(ctx, c)
	if err != nil {
		return nil, err
	}
	if err := p.prepare(); err != nil {
		return nil, err
	}
	return p, nil
}

// Preview is NewPlan without what a run needs and a look does not: it
// checks the outputs and cuts the inputs into parts as NewPlan does, but
// takes no lock, makes no folder and writes nothing, so that it works
// while another run holds the output folders (mementomap-beam
// --dry_run). Its plan has no TempDir and cannot be run. c is taken as by
// NewPlan (nil means the zero Config).
func Preview(ctx context.Context, cfg *Config) (*Plan, error) {
	var c Config
	if cfg != nil {
		c = *cfg
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if err := checkOutputs(c.MapOutput, c.CompactOutput, c.SummaryOutput); err != nil {
		return nil, err
	}
	if c.ShardBytes <= 0 {
		c.ShardBytes = DefaultShardBytes
	}
	if c.Build.UpdatedAt.IsZero() {
		c.Build.UpdatedAt = time.Now()
	}
	c.Build.UpdatedAt = c.Build.UpdatedAt.UTC().Truncate(time.Second)
	names, err := ExpandInputs(c.Inputs)
	if err != nil {
		return nil, err
	}
	p := &Plan{Config: c, Files: names}
	outs := statOutputs(c.MapOutput, c.CompactOutput, c.SummaryOutput)
	for i, name := range names {
		if err := checkNotInput(outs, name, name); err != nil {
			return nil, err
		}
		ix, err := cdxj.Open(ctx, name, nil)
		if err != nil {
			return nil, fmt.Errorf("pipeline: input %s: %w", name, err)
		}
		if cl, ok := ix.(*cdxj.Cluster); ok && len(outs) > 0 {
			if err := checkNotClusterFile(outs, name, cl); err != nil {
				ix.Close()
				return nil, err
			}
		}
		size, err := StoredSize(ix)
		if err != nil {
			ix.Close()
			return nil, fmt.Errorf("pipeline: input %s: %w", name, err)
		}
		p.Bytes += size
		n := int(max(1, (size+c.ShardBytes-1)/c.ShardBytes))
		p.Asked += n
		parts, err := cdxj.Plan(ctx, []cdxj.Index{ix}, n)
		ix.Close()
		if err != nil {
			return nil, fmt.Errorf("pipeline: input %s: %w", name, err)
		}
		for _, pt := range parts {
			// The name as given, which a worker opens as the planner did
			// (a CDX server URL with its url= and matchType=).
			pt.Input, pt.Source = i, name
			p.Parts = append(p.Parts, pt)
		}
	}
	for i := range p.Parts {
		p.Parts[i].Seq, p.Parts[i].Of = i, len(p.Parts)
	}
	return p, nil
}

// stagingPrefix returns the folder in which the plan's temporary folder
// is made and the start of its name: ".BASE.beam-" beside the map output,
// or "mementomap-beam-" in Config.TempDir.
func (c Config) stagingPrefix() (dir, prefix string) {
	if c.TempDir != "" {
		return c.TempDir, "mementomap-beam-"
	}
	dir, base := filepath.Split(c.MapOutput)
	if dir == "" {
		dir = "."
	}
	return dir, "." + base + ".beam-"
}

// prepare takes the output folders' locks, removes the temporary folders
// of runs that ended without removing theirs (RemovedStale), makes the
// plan's own temporary folder, locked while the plan lives, and checks
// that each output can be renamed into place from it.
func (p *Plan) prepare() (err error) {
	c := p.Config
	dir, prefix := c.stagingPrefix()
	if c.TempDir != "" {
		if err := os.MkdirAll(c.TempDir, 0o755); err != nil {
			return fmt.Errorf("pipeline: the temporary folder %s: %w", c.TempDir, err)
		}
	}
	if p.locks, err = lockFolders(c.MapOutput, c.CompactOutput, c.SummaryOutput); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			p.Cleanup()
		}
	}()
	// A temporary folder is locked by its run from just after it is made
	// until it is removed; the lock of the folder it is made in (the map
	// output's, held already, or --temp-dir's, held here) keeps a run
	// from taking a folder just made and not yet locked for stale.
	if !p.holds(dir) {
		l, err := lockDir(dir, true)
		if err != nil {
			return fmt.Errorf("pipeline: locking the temporary folder %s: %w", dir, err)
		}
		defer l.Close()
	}
	if p.RemovedStale, err = removeStale(dir, prefix); err != nil {
		return err
	}
	t, err := os.MkdirTemp(dir, prefix)
	if err != nil {
		return fmt.Errorf("pipeline: making the run's temporary folder in %s (beside --output %s, or --temp-dir): %w", dir, c.MapOutput, err)
	}
	p.TempDir = t
	if p.tempLock, err = lockDir(t, false); err != nil {
		return fmt.Errorf("pipeline: locking the run's temporary folder %s: %w", t, err)
	}
	for _, o := range []string{c.MapOutput, c.CompactOutput, c.SummaryOutput} {
		if o != "" {
			if err := checkRename(t, o, c.TempDir != ""); err != nil {
				return err
			}
		}
	}
	return nil
}

// holds reports whether dir is one of the output folders p has locked.
func (p *Plan) holds(dir string) bool {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	for _, l := range p.locks {
		if l.Name() == abs {
			return true
		}
	}
	return false
}

// lockDir opens dir and takes an exclusive flock on it, waiting for it
// when wait is set.
func lockDir(dir string, wait bool) (*os.File, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	how := syscall.LOCK_EX
	if !wait {
		how |= syscall.LOCK_NB
	}
	if err := syscall.Flock(int(f.Fd()), how); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// removeStale removes the folders in dir whose names are prefix and the
// digits of os.MkdirTemp: the temporary folders of earlier runs. A run
// holds its folder's lock until it has removed it, so a folder whose lock
// can be taken has no live run: its run was killed (SIGKILL, a crash of
// the machine). It returns the folders removed.
func removeStale(dir, prefix string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("pipeline: reading the temporary folder %s: %w", dir, err)
	}
	var removed []string
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || !e.IsDir() || rest == "" || strings.Trim(rest, "0123456789") != "" {
			continue
		}
		path := filepath.Join(dir, e.Name())
		l, err := lockDir(path, false)
		if errors.Is(err, syscall.EWOULDBLOCK) {
			continue // a live run's
		}
		if err != nil {
			return removed, fmt.Errorf("pipeline: the temporary folder of an earlier run %s: %w", path, err)
		}
		err = os.RemoveAll(path)
		l.Close()
		if err != nil {
			return removed, fmt.Errorf("pipeline: removing the temporary folder of an earlier run %s: %w", path, err)
		}
		removed = append(removed, path)
	}
	return removed, nil
}

// checkRename checks that a file made in the temporary folder tempDir can
// be renamed into the folder of output, as the outputs are at the end:
// it makes a file there and renames it beside output under a name of its
// own, then removes it. The error names the output and says why (no
// right to write there, a read-only or another file system) and what to
// do; given says whether tempDir is in a folder the caller gave
// (Config.TempDir, --temp-dir) or beside the map output.
func checkRename(tempDir, output string, given bool) error {
	f, err := os.CreateTemp(tempDir, "rename-check-")
	if err != nil {
		return fmt.Errorf("pipeline: the run's temporary folder %s: %w", tempDir, err)
	}
	src := f.Name()
	f.Close()
	defer os.Remove(src)
	dst := filepath.Join(filepath.Dir(output), "."+filepath.Base(output)+"."+filepath.Base(src))
	err = os.Rename(src, dst)
	if err == nil {
		return os.Remove(dst)
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		err = le.Err
	}
	if errors.Is(err, syscall.EXDEV) {
		if given {
			return fmt.Errorf("pipeline: output %s cannot be put in place: its folder %s is on another file system than the run's temporary folder %s, made in --temp-dir %s (give --temp-dir a folder on the outputs' file system, or leave it out)", output, filepath.Dir(output), tempDir, filepath.Dir(tempDir))
		}
		return fmt.Errorf("pipeline: output %s cannot be put in place: its folder %s is on another file system than the folder %s of the map output, where the run's temporary folder is made (write every output on one file system)", output, filepath.Dir(output), filepath.Dir(tempDir))
	}
	return fmt.Errorf("pipeline: output %s cannot be put in place: renaming a file into its folder %s: %w", output, filepath.Dir(output), err)
}

// lockFolders opens the folder of each output path ("" for none) and
// takes an exclusive flock on it without waiting. On failure it releases
// the locks it took; the error names the folder.
func lockFolders(paths ...string) ([]*os.File, error) {
	var locks []*os.File
	seen := map[string]bool{}
	for _, p := range paths {
		if p == "" {
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("pipeline: output %s: %w", p, err)
		}
		dir := filepath.Dir(abs)
		if seen[dir] {
			continue
		}
		seen[dir] = true
		f, err := os.Open(dir)
		if err == nil {
			err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
			if err != nil {
				f.Close()
			}
		}
		if err != nil {
			for _, l := range locks {
				l.Close()
			}
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, fmt.Errorf("pipeline: output folder %s is in use by another run (it holds the folder's lock until it ends)", dir)
			}
			return nil, fmt.Errorf("pipeline: locking output folder %s: %w", dir, err)
		}
		locks = append(locks, f)
	}
	return locks, nil
}

// unlock releases the output folders' locks (closing a file releases its
// flock).
func (p *Plan) unlock() {
	if p.tempLock != nil {
		p.tempLock.Close()
		p.tempLock = nil
	}
	for _, l := range p.locks {
		l.Close()
	}
	p.locks = nil
}

// checkOutputs checks that each output path ("" for none) is in an
// existing folder, is not a folder, a device or a pipe (what it names, if
// anything, is a regular file), and is not another output's.
func checkOutputs(paths ...string) error {
	seen := map[string]string{}
	for _, p := range paths {
		if p == "" {
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return fmt.Errorf("pipeline: output %s: %w", p, err)
		}
		if q, dup := seen[abs]; dup {
			return fmt.Errorf("pipeline: output %s is also output %s", p, q)
		}
		seen[abs] = p
		dir := filepath.Dir(abs)
		if fi, err := os.Stat(dir); err != nil {
			return fmt.Errorf("pipeline: output %s: its folder: %w", p, err)
		} else if !fi.IsDir() {
			return fmt.Errorf("pipeline: output %s: %s is not a folder", p, dir)
		}
		if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
			return fmt.Errorf("pipeline: output %s is a folder", p)
		} else if err == nil && !fi.Mode().IsRegular() {
			// The commit renames over it: a device or a pipe would be
			// replaced by a regular file.
			return fmt.Errorf("pipeline: output %s is not a regular file (%s)", p, fi.Mode().Type())
		}
	}
	return nil
}

// existingOutput is an output path that names a file before the run.
type existingOutput struct {
	path string
	fi   os.FileInfo
}

// statOutputs returns the outputs among paths that already name a file.
func statOutputs(paths ...string) []existingOutput {
	var outs []existingOutput
	for _, p := range paths {
		if p == "" {
			continue
		}
		if fi, err := os.Stat(p); err == nil {
			outs = append(outs, existingOutput{p, fi})
		}
	}
	return outs
}

// checkNotInput returns an error when one of outs is the file at path
// (after symbolic links), an input file named input or one of its files.
func checkNotInput(outs []existingOutput, input, path string) error {
	if len(outs) == 0 {
		return nil
	}
	l := strings.ToLower(path)
	if strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://") {
		return nil
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil // opening the input reports it
	}
	if fi.IsDir() {
		// A cluster folder: its secondary index and its parts.
		ents, err := os.ReadDir(path)
		if err != nil {
			return nil
		}
		for _, e := range ents {
			if !e.IsDir() {
				if err := checkNotInput(outs, input, filepath.Join(path, e.Name())); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, o := range outs {
		if os.SameFile(o.fi, fi) {
			if path == input {
				return fmt.Errorf("pipeline: output %s is the input %s; write to another file", o.path, input)
			}
			return fmt.Errorf("pipeline: output %s is the input %s (its file %s); write to another file", o.path, input, path)
		}
	}
	return nil
}

// checkNotClusterFile returns an error when one of outs is a part file
// of cluster cl (the input named input).
func checkNotClusterFile(outs []existingOutput, input string, cl *cdxj.Cluster) error {
	dir := filepath.Dir(cdxj.SourceName(cl))
	seen := map[string]bool{}
	for e, err := range cl.Entries() {
		if err != nil {
			return nil // planning reports it
		}
		if seen[e.Part] {
			continue
		}
		seen[e.Part] = true
		path := e.Part
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		if err := checkNotInput(outs, input, path); err != nil {
			return err
		}
	}
	return nil
}

// StoredSize returns the bytes of an index as stored, which Config.ShardBytes
// counts: a *cdxj.File's size (compressed, for a gzip file), the sum of a
// *cdxj.Cluster's block lengths (compressed), 0 for any other index (a
// stream, a CDX server: no size). The error is a cluster's, reading its
// secondary index (cdxj.ErrZipNum for a bad .idx line, naming it).
func StoredSize(ix cdxj.Index) (int64, error) {
	switch x := ix.(type) {
	case *cdxj.File:
		return x.Size(), nil
	case *cdxj.Cluster:
		var n int64
		for e, err := range x.Entries() {
			if err != nil {
				return 0, err
			}
			n += e.Length
		}
		return n, nil
	}
	return 0, nil
}

// ExpandInputs returns the inputs named by names: each glob pattern
// (holding one of "*?[") replaced by its matches in byte-wise order, URLs
// and other names as they are. A pattern that matches nothing is an
// error, as is a malformed one.
func ExpandInputs(names []string) ([]string, error) {
	var out []string
	for _, n := range names {
		l := strings.ToLower(n)
		if strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://") || !strings.ContainsAny(n, "*?[") {
			out = append(out, n)
			continue
		}
		m, err := filepath.Glob(n)
		if err != nil {
			return nil, fmt.Errorf("pipeline: input pattern %q: %w", n, err)
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("pipeline: input pattern %q matches no file", n)
		}
		out = append(out, m...) // filepath.Glob sorts
	}
	return out, nil
}

// shardPath returns the path of a shard file of the plan.
func shardPath(tempDir, kind string, seq int) string {
	return filepath.Join(tempDir, fmt.Sprintf("%s-%05d", kind, seq))
}

// setLegends gives each part of a plain file cut into several parts the
// " CDX" legend in force where it starts (cdxj.File.SetLegends: a read of
// the file up to its last part's start).
func (p *Plan) setLegends(ctx context.Context) error {
	for i := 0; i < len(p.Parts); {
		j := i + 1
		for j < len(p.Parts) && p.Parts[j].Input == p.Parts[i].Input {
			j++
		}
		if p.Parts[i].Kind == cdxj.PartBytes && j-i > 1 {
			ix, err := cdxj.Open(ctx, p.Parts[i].Source, nil)
			if err != nil {
				return fmt.Errorf("pipeline: input %s: %w", p.Parts[i].Source, err)
			}
			f, ok := ix.(*cdxj.File)
			if ok {
				err = f.SetLegends(ctx, p.Parts[i:j])
			}
			ix.Close()
			if err != nil {
				return fmt.Errorf("pipeline: input %s: %w", p.Parts[i].Source, err)
			}
		}
		i = j
	}
	return nil
}

// partJSON encodes a part for the pipeline.
func partJSON(p cdxj.Part) string {
	b, _ := json.Marshal(p)
	return string(b)
}
