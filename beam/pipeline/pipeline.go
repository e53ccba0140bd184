package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/atomicfile"
	"github.com/mementokit/mementokit/mementomap"
	"github.com/mementokit/mementokit/summary"
)

func init() {
	register.DoFn3x1[context.Context, string, func(string), error](&buildPartFn{})
	register.DoFn3x1[context.Context, string, func(string), error](&summarizePartFn{})
	register.DoFn4x1[context.Context, int, func(*string) bool, func(string), error](&concatMapFn{})
	register.DoFn3x1[context.Context, string, func(string), error](&planCompactFn{})
	register.DoFn3x1[context.Context, string, func(string), error](&compactPieceFn{})
	register.DoFn4x1[context.Context, int, func(*string) bool, func(string), error](&concatCompactFn{})
	register.DoFn4x1[context.Context, int, func(*string) bool, func(string), error](&combineSummaryFn{})
	register.DoFn3x1[context.Context, int, func(*string) bool, error](&commitFn{})
	register.Emitter1[string]()
	register.Iter1[string]()
}

// Kinds of shard and output.
const (
	kindMap     = "map"
	kindCompact = "compact"
	kindSummary = "summary"
)

// Shard is one finished file of a pipeline, as an element of it (JSON):
// a partial map, summary or compacted piece (Seq of Of), or a whole
// output (Of 0) before it is renamed into place.
type Shard struct {
	Kind string `json:"kind"`
	Seq  int    `json:"seq"`
	Of   int    `json:"of"`
	Path string `json:"path"`
	// Part is what the shard was made from: an input part ("SOURCE bytes
	// START-END") or a piece of the map ("bytes START-END").
	Part string `json:"part,omitempty"`
	// Start and End bound a piece of the map to compact.
	Start int64 `json:"start,omitempty"`
	End   int64 `json:"end,omitempty"`

	Build   *mementomap.BuildStats   `json:"build,omitempty"`
	Compact *mementomap.CompactStats `json:"compact,omitempty"`
	Summary *summary.Stats           `json:"summary,omitempty"`
}

func (s Shard) encode() string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err) // plain data: cannot happen
	}
	return string(b)
}

func decodeShard(elem string) (Shard, error) {
	var s Shard
	if err := json.Unmarshal([]byte(elem), &s); err != nil {
		return s, fmt.Errorf("pipeline: a shard element %.80q: %w", elem, err)
	}
	return s, nil
}

// partError names a part in the error of its work.
func partError(p cdxj.Part, what string, err error) error {
	return fmt.Errorf("pipeline: part %d of %d (%s): %s: %w", p.Seq, p.Of, p, what, err)
}

// failedPrefix begins the names of the files in the temporary folder where
// the steps leave the messages of their errors, for Run: "failed-" then the
// step's number (the parts 1, concatenating and combining 2, compaction
// 3 to 5, the commit 6) and what failed, so that the names sort in the
// order the pipeline meets the failures.
const failedPrefix = "failed-"

// recordFailure leaves the message of err, if any, in the temporary folder
// under the name failedPrefix+step+"-"+what, and returns err. The runner
// reports err too, inside its own report of the bundle; Run reads the
// message back to say what failed in one line. An element stopped because
// the run is ending (ctx done: another element failed) records nothing.
func recordFailure(ctx context.Context, tempDir string, step int, what string, err error) error {
	if err != nil && ctx.Err() == nil && !errors.Is(err, context.Canceled) {
		// Best effort: without the file Run still has the runner's error.
		_ = os.WriteFile(filepath.Join(tempDir, fmt.Sprintf("%s%d-%s", failedPrefix, step, what)), []byte(err.Error()), 0o644)
	}
	return err
}

// layoutName is the file a part leaves in the temporary folder when a
// legend line inside it changes the layout of the parts after it
// (cdxj.ErrPartLayout), for Run.
const layoutName = "layout-changed"

// markLayout leaves layoutName in tempDir when err wraps
// cdxj.ErrPartLayout, and returns err.
func markLayout(tempDir string, err error) error {
	if errors.Is(err, cdxj.ErrPartLayout) {
		// Best effort: without it Run reports the part's error.
		_ = os.WriteFile(filepath.Join(tempDir, layoutName), nil, 0o644)
	}
	return err
}

// running counts the elements being processed in this process, by
// temporary folder: with an in-process runner (prism) elements of a
// failed run may still be at work when beam.Run returns, and Run waits for
// them before it removes their folder.
var running = struct {
	sync.Mutex
	n    map[string]int
	idle *sync.Cond
}{n: map[string]int{}}

func init() { running.idle = sync.NewCond(&running.Mutex) }

// busy counts an element of the plan of tempDir as running until the
// returned func is called.
func busy(tempDir string) func() {
	running.Lock()
	running.n[tempDir]++
	running.Unlock()
	return func() {
		running.Lock()
		if running.n[tempDir]--; running.n[tempDir] == 0 {
			delete(running.n, tempDir)
		}
		running.Unlock()
		running.idle.Broadcast()
	}
}

// waitIdle waits until no element of the plan of tempDir runs in this
// process, or until d has passed.
func waitIdle(tempDir string, d time.Duration) {
	t := time.AfterFunc(d, running.idle.Broadcast)
	defer t.Stop()
	deadline := time.Now().Add(d)
	running.Lock()
	defer running.Unlock()
	for running.n[tempDir] > 0 && time.Now().Before(deadline) {
		running.idle.Wait()
	}
}

// Failure is the error of [Run] when a step of the pipeline failed: Msg is
// the error of the first step to fail in pipeline order (a part before the
// steps that gather the parts; among parts, the first in plan order), as
// the step returned it, naming the input and the part; Others counts the
// other elements that failed. Runner is the runner's own error, which
// holds Msg inside its report of the failed bundle (prism's is many lines
// long).
type Failure struct {
	Msg    string
	Others int
	Runner error
}

// Error returns Msg, with the count of other failures.
func (e *Failure) Error() string {
	switch {
	case e.Others == 1:
		return e.Msg + " (and 1 other failed element)"
	case e.Others > 1:
		return fmt.Sprintf("%s (and %d other failed elements)", e.Msg, e.Others)
	}
	return e.Msg
}

// Unwrap returns the runner's error.
func (e *Failure) Unwrap() error { return e.Runner }

// readFailure returns the Failure recorded in tempDir, or nil when no step
// recorded one.
func readFailure(tempDir string, runner error) *Failure {
	names, _ := filepath.Glob(filepath.Join(tempDir, failedPrefix+"*"))
	if len(names) == 0 {
		return nil
	}
	sort.Strings(names)
	b, err := os.ReadFile(names[0])
	if err != nil || len(b) == 0 {
		return nil
	}
	return &Failure{Msg: string(b), Others: len(names) - 1, Runner: runner}
}

func decodePart(elem string) (cdxj.Part, error) {
	var p cdxj.Part
	if err := json.Unmarshal([]byte(elem), &p); err != nil {
		return p, fmt.Errorf("pipeline: a part element %.80q: %w", elem, err)
	}
	return p, nil
}

// writeShard writes path through atomicfile (whole or not at all, so a
// retried bundle rewrites it cleanly) with write, synced before it is
// renamed: for the files that become the outputs.
func writeShard(path string, write func(w io.Writer) error) error {
	return writeFile(path, nil, write)
}

// writeScratch is writeShard without the sync (atomicfile.Options.NoSync):
// for the files the run reads back and removes (partial maps, partial
// summaries, compacted pieces, the report), which a crashed run makes
// again.
func writeScratch(path string, write func(w io.Writer) error) error {
	return writeFile(path, &atomicfile.Options{NoSync: true}, write)
}

func writeFile(path string, o *atomicfile.Options, write func(w io.Writer) error) error {
	f, err := atomicfile.Create(path, o)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := write(f); err != nil {
		return err
	}
	return f.Commit()
}

// buildPartFn builds the partial map of one part.
type buildPartFn struct {
	Spec    BuildSpec
	TempDir string
}

func (f *buildPartFn) ProcessElement(ctx context.Context, elem string, emit func(string)) error {
	defer busy(f.TempDir)()
	p, err := decodePart(elem)
	if err != nil {
		return recordFailure(ctx, f.TempDir, 1, "element", err)
	}
	return recordFailure(ctx, f.TempDir, 1, fmt.Sprintf("part-%06d-map", p.Seq), markLayout(f.TempDir, f.process(ctx, p, emit)))
}

func (f *buildPartFn) process(ctx context.Context, p cdxj.Part, emit func(string)) error {
	ix, err := cdxj.Open(ctx, p.Source, nil)
	if err != nil {
		return partError(p, "opening the input", err)
	}
	defer ix.Close()
	path := shardPath(f.TempDir, kindMap, p.Seq)
	var st mementomap.BuildStats
	err = writeScratch(path, func(w io.Writer) error {
		st, err = mementomap.BuildPart(ctx, w, ix, p, f.Spec.Options(f.TempDir))
		return err
	})
	if err != nil {
		return partError(p, "building its map", err)
	}
	emit(Shard{Kind: kindMap, Seq: p.Seq, Of: p.Of, Path: path, Part: p.String(), Build: &st}.encode())
	return nil
}

// summarizePartFn summarizes one part into a partial summary
// (summary.SummarizePart).
type summarizePartFn struct {
	Spec    SummarySpec
	TempDir string
}

func (f *summarizePartFn) ProcessElement(ctx context.Context, elem string, emit func(string)) error {
	defer busy(f.TempDir)()
	p, err := decodePart(elem)
	if err != nil {
		return recordFailure(ctx, f.TempDir, 1, "element", err)
	}
	return recordFailure(ctx, f.TempDir, 1, fmt.Sprintf("part-%06d-summary", p.Seq), markLayout(f.TempDir, f.process(ctx, p, emit)))
}

func (f *summarizePartFn) process(ctx context.Context, p cdxj.Part, emit func(string)) error {
	ix, err := cdxj.Open(ctx, p.Source, nil)
	if err != nil {
		return partError(p, "opening the input", err)
	}
	defer ix.Close()
	path := shardPath(f.TempDir, kindSummary, p.Seq)
	var st summary.Stats
	err = writeScratch(path, func(w io.Writer) error {
		st, err = summary.SummarizePart(ctx, w, ix, p, f.Spec.Options(), f.Spec.SkipBad)
		return err
	})
	if err != nil {
		return partError(p, "summarizing it", err)
	}
	emit(Shard{Kind: kindSummary, Seq: p.Seq, Of: p.Of, Path: path, Part: p.String(), Summary: &st}.encode())
	return nil
}

// gather decodes the shards of one kind, checks that they are the Of
// shards 0 to Of-1 of one plan, each once, and returns them in order.
func gather(kind string, values func(*string) bool) ([]Shard, error) {
	var shards []Shard
	var elem string
	for values(&elem) {
		s, err := decodeShard(elem)
		if err != nil {
			return nil, err
		}
		if s.Kind != kind {
			return nil, fmt.Errorf("pipeline: a %s shard among the %s shards", s.Kind, kind)
		}
		shards = append(shards, s)
	}
	slices.SortFunc(shards, func(a, b Shard) int { return a.Seq - b.Seq })
	if len(shards) == 0 {
		return nil, fmt.Errorf("pipeline: no %s shards", kind)
	}
	for i, s := range shards {
		if s.Seq != i || s.Of != len(shards) {
			return nil, fmt.Errorf("pipeline: %s shard %d of %d found as shard %d of the %d gathered (a shard missing or repeated)", kind, s.Seq, s.Of, i, len(shards))
		}
	}
	return shards, nil
}

// shardFile is an open shard that errors name by what it was made from
// (mementomap.Concat and summary.Combiner name their inputs so).
type shardFile struct {
	*os.File
	name string
}

// Name returns "the partial map of part 2 of 8 (SOURCE bytes START-END)"
// or the like.
func (f shardFile) Name() string { return f.name }

// describe names a shard by what it was made from.
func (s Shard) describe() string {
	switch s.Kind {
	case kindMap:
		return fmt.Sprintf("the partial map of part %d of %d (%s)", s.Seq, s.Of, s.Part)
	case kindSummary:
		return fmt.Sprintf("the partial summary of part %d of %d (%s)", s.Seq, s.Of, s.Part)
	case kindCompact:
		return fmt.Sprintf("compacted piece %d of %d (%s)", s.Seq, s.Of, s.Part)
	}
	return fmt.Sprintf("%s shard %d of %d (%s)", s.Kind, s.Seq, s.Of, s.Part)
}

// openAll opens the shards' files.
func openAll(shards []Shard) ([]shardFile, func(), error) {
	fs := make([]shardFile, 0, len(shards))
	done := func() {
		for _, f := range fs {
			f.Close()
		}
	}
	for _, s := range shards {
		f, err := os.Open(s.Path)
		if err != nil {
			done()
			return nil, nil, fmt.Errorf("pipeline: %s: %w", s.describe(), err)
		}
		fs = append(fs, shardFile{f, s.describe()})
	}
	return fs, done, nil
}

// concatMapFn merges the partial maps into the map (mementomap.Concat).
type concatMapFn struct {
	Spec    BuildSpec
	TempDir string
}

func (f *concatMapFn) ProcessElement(ctx context.Context, _ int, values func(*string) bool, emit func(string)) error {
	defer busy(f.TempDir)()
	return recordFailure(ctx, f.TempDir, 2, "concat-map", f.process(ctx, values, emit))
}

func (f *concatMapFn) process(ctx context.Context, values func(*string) bool, emit func(string)) error {
	shards, err := gather(kindMap, values)
	if err != nil {
		return err
	}
	fs, done, err := openAll(shards)
	if err != nil {
		return err
	}
	defer done()
	rs := make([]io.Reader, len(fs))
	for i, f := range fs {
		rs[i] = f
	}
	path := filepath.Join(f.TempDir, kindMap)
	var st mementomap.BuildStats
	err = writeShard(path, func(w io.Writer) error {
		st, err = mementomap.Concat(ctx, w, rs, f.Spec.Options(f.TempDir))
		return err
	})
	if err != nil {
		if errors.Is(err, mementomap.ErrPartsSplitKey) {
			return fmt.Errorf("pipeline: two inputs share an HxPx key, the map's key, whose URI-Rs do not follow one another from the earlier input to the later (each input sorted, and the inputs one after the other, by full SURT: see the package documentation): %w", err)
		}
		if errors.Is(err, mementomap.ErrPartsOverlap) {
			return fmt.Errorf("pipeline: the inputs are not each sorted and one after the other by SURT (see the package documentation): %w", err)
		}
		return fmt.Errorf("pipeline: merging the partial maps: %w", err)
	}
	// Concat counts the map's lines; the parts count what was read.
	var sum mementomap.BuildStats
	for _, s := range shards {
		if s.Build != nil {
			sum.Add(*s.Build)
		}
	}
	sum.Keys, sum.URIRs = st.Keys, st.URIRs
	emit(Shard{Kind: kindMap, Path: path, Build: &sum}.encode())
	return nil
}

// planCompactFn cuts the map into pieces for compaction.
type planCompactFn struct {
	Spec    CompactSpec
	Pieces  int
	TempDir string
}

func (f *planCompactFn) ProcessElement(ctx context.Context, elem string, emit func(string)) error {
	defer busy(f.TempDir)()
	return recordFailure(ctx, f.TempDir, 3, "compact-plan", f.process(ctx, elem, emit))
}

func (f *planCompactFn) process(ctx context.Context, elem string, emit func(string)) error {
	m, err := decodeShard(elem)
	if err != nil {
		return err
	}
	mf, err := os.Open(m.Path)
	if err != nil {
		return fmt.Errorf("pipeline: compaction: %w", err)
	}
	defer mf.Close()
	fi, err := mf.Stat()
	if err != nil {
		return fmt.Errorf("pipeline: compaction: %w", err)
	}
	cuts, err := mementomap.CompactCuts(ctx, mf, fi.Size(), f.Pieces, f.Spec.Options(f.TempDir))
	if err != nil {
		return fmt.Errorf("pipeline: cutting the map for compaction: %w", err)
	}
	bounds := append(append([]int64{0}, cuts...), fi.Size())
	for i := 0; i+1 < len(bounds); i++ {
		emit(Shard{Kind: kindCompact, Seq: i, Of: len(bounds) - 1, Path: m.Path, Start: bounds[i], End: bounds[i+1],
			Part: fmt.Sprintf("map bytes %d-%d", bounds[i], bounds[i+1])}.encode())
	}
	return nil
}

// compactPieceFn compacts one piece of the map.
type compactPieceFn struct {
	Spec    CompactSpec
	TempDir string
}

func (f *compactPieceFn) ProcessElement(ctx context.Context, elem string, emit func(string)) error {
	defer busy(f.TempDir)()
	pc, err := decodeShard(elem)
	if err != nil {
		return recordFailure(ctx, f.TempDir, 4, "element", err)
	}
	return recordFailure(ctx, f.TempDir, 4, fmt.Sprintf("piece-%06d-compact", pc.Seq), f.process(pc, emit))
}

func (f *compactPieceFn) process(pc Shard, emit func(string)) error {
	mf, err := os.Open(pc.Path)
	if err != nil {
		return fmt.Errorf("pipeline: compaction piece %d of %d: %w", pc.Seq, pc.Of, err)
	}
	defer mf.Close()
	path := shardPath(f.TempDir, kindCompact, pc.Seq)
	var st mementomap.CompactStats
	err = writeScratch(path, func(w io.Writer) error {
		st, err = mementomap.Compact(w, io.NewSectionReader(mf, pc.Start, pc.End-pc.Start), f.Spec.Options(f.TempDir))
		return err
	})
	if err != nil {
		return fmt.Errorf("pipeline: compaction piece %d of %d (%s): %w", pc.Seq, pc.Of, pc.Part, err)
	}
	emit(Shard{Kind: kindCompact, Seq: pc.Seq, Of: pc.Of, Path: path, Part: pc.Part, Compact: &st}.encode())
	return nil
}

// concatCompactFn concatenates the compacted pieces.
type concatCompactFn struct {
	TempDir string
}

func (f *concatCompactFn) ProcessElement(ctx context.Context, _ int, values func(*string) bool, emit func(string)) error {
	defer busy(f.TempDir)()
	return recordFailure(ctx, f.TempDir, 5, "concat-compact", f.process(ctx, values, emit))
}

func (f *concatCompactFn) process(ctx context.Context, values func(*string) bool, emit func(string)) error {
	shards, err := gather(kindCompact, values)
	if err != nil {
		return err
	}
	fs, done, err := openAll(shards)
	if err != nil {
		return err
	}
	defer done()
	var st mementomap.CompactStats
	path := filepath.Join(f.TempDir, kindCompact)
	err = writeShard(path, func(w io.Writer) error {
		for i, in := range fs {
			if err := ctx.Err(); err != nil {
				return err
			}
			if _, err := io.Copy(w, in); err != nil {
				return fmt.Errorf("compacted piece %d: %w", i, err)
			}
			if shards[i].Compact != nil {
				st.Add(*shards[i].Compact)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("pipeline: concatenating the compacted pieces: %w", err)
	}
	emit(Shard{Kind: kindCompact, Path: path, Compact: &st}.encode())
	return nil
}

// combineSummaryFn combines the partial summaries.
type combineSummaryFn struct {
	Spec    SummarySpec
	TempDir string
}

func (f *combineSummaryFn) ProcessElement(ctx context.Context, _ int, values func(*string) bool, emit func(string)) error {
	defer busy(f.TempDir)()
	return recordFailure(ctx, f.TempDir, 2, "combine-summary", f.process(ctx, values, emit))
}

func (f *combineSummaryFn) process(ctx context.Context, values func(*string) bool, emit func(string)) error {
	shards, err := gather(kindSummary, values)
	if err != nil {
		return err
	}
	c := summary.NewCombiner(&summary.CombineOptions{Compact: f.Spec.Compact})
	var st summary.Stats
	for _, s := range shards {
		if err := ctx.Err(); err != nil {
			return err
		}
		in, err := os.Open(s.Path)
		if err != nil {
			return fmt.Errorf("pipeline: %s: %w", s.describe(), err)
		}
		err = c.AddSummary(in, s.describe())
		in.Close()
		if err != nil {
			return fmt.Errorf("pipeline: combining %s: %w", s.describe(), err)
		}
		if s.Summary != nil {
			st.Add(*s.Summary)
		}
	}
	path := filepath.Join(f.TempDir, kindSummary)
	if err := writeShard(path, func(w io.Writer) error { _, err := c.WriteTo(w); return err }); err != nil {
		return fmt.Errorf("pipeline: writing the summary: %w", err)
	}
	st.Keys = int64(len(c.Lines()))
	emit(Shard{Kind: kindSummary, Path: path, Summary: &st}.encode())
	return nil
}

// commitFn puts the finished outputs in place, all of them or none, once
// every one the plan asks for is there, and writes the report.
type commitFn struct {
	Outputs map[string]string // kind → final path
	TempDir string
}

// reportName is the file in the temporary folder where commitFn leaves
// the stats of the finished outputs, for Run.
const reportName = "report.json"

func (f *commitFn) ProcessElement(ctx context.Context, _ int, values func(*string) bool) error {
	defer busy(f.TempDir)()
	return recordFailure(ctx, f.TempDir, 6, "commit", f.process(ctx, values))
}

func (f *commitFn) process(ctx context.Context, values func(*string) bool) error {
	got := map[string]Shard{}
	var elem string
	for values(&elem) {
		s, err := decodeShard(elem)
		if err != nil {
			return err
		}
		if _, dup := got[s.Kind]; dup {
			return fmt.Errorf("pipeline: two %s outputs", s.Kind)
		}
		got[s.Kind] = s
	}
	for kind := range f.Outputs {
		if _, ok := got[kind]; !ok {
			return fmt.Errorf("pipeline: the %s output is missing", kind)
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	var outs []Shard
	for _, kind := range []string{kindMap, kindCompact, kindSummary} {
		if s, ok := got[kind]; ok {
			outs = append(outs, s)
		}
	}
	rep, err := commit(outs, f.Outputs, f.TempDir)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return writeScratch(filepath.Join(f.TempDir, reportName), func(w io.Writer) error { _, err := w.Write(b); return err })
}

// commit renames the finished outputs (in tempDir) onto their final paths,
// all of them or none. Each rename replaces the file at its final path at
// once, so that at every moment the path holds the old file or the new
// one; a hard link of the old file (a copy where links fail) is kept in
// tempDir, and when a later rename fails the outputs already renamed are
// replaced by those old files again, or removed where there was none. It
// returns the outputs with Path their final paths.
func commit(outs []Shard, finals map[string]string, tempDir string) ([]Shard, error) {
	type step struct {
		final, aside string // aside: the old file at final, kept ("" if none)
		placed       bool   // the output is at final
	}
	var done []step
	undo := func() {
		for i := len(done) - 1; i >= 0; i-- {
			d := done[i]
			if d.aside != "" {
				os.Rename(d.aside, d.final)
			} else if d.placed {
				os.Remove(d.final)
			}
		}
	}
	var rep []Shard
	for _, s := range outs {
		final := finals[s.Kind]
		if err := os.Chmod(s.Path, 0o644); err != nil {
			undo()
			return nil, fmt.Errorf("pipeline: %w", err)
		}
		st := step{final: final}
		if fi, err := os.Lstat(final); err == nil && fi.Mode().IsRegular() {
			st.aside = filepath.Join(tempDir, "previous-"+s.Kind)
			if err := keep(final, st.aside); err != nil {
				undo()
				return nil, fmt.Errorf("pipeline: keeping the file at the %s output %s until the outputs are in place: %w", s.Kind, final, err)
			}
		}
		done = append(done, st)
		if err := os.Rename(s.Path, final); err != nil {
			undo()
			var le *os.LinkError
			if errors.As(err, &le) {
				err = le.Err // the temporary name says nothing to the user
			}
			return nil, fmt.Errorf("pipeline: putting the %s output in place at %s: %w (none of the outputs was written)", s.Kind, final, err)
		}
		done[len(done)-1].placed = true
		s.Path = final
		rep = append(rep, s)
	}
	for _, d := range done {
		if err := syncDir(filepath.Dir(d.final)); err != nil {
			return rep, fmt.Errorf("pipeline: the outputs are in place, but syncing their folder: %w", err)
		}
	}
	return rep, nil
}

// keep makes a hard link at aside of the file at path, or a copy of it
// where the file system has no links.
func keep(path, aside string) error {
	if os.Link(path, aside) == nil {
		return nil
	}
	in, err := os.Open(path)
	if err != nil {
		return err
	}
	defer in.Close()
	return writeShard(aside, func(w io.Writer) error { _, err := io.Copy(w, in); return err })
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Construct adds the pipeline of plan p to scope s: the build of the map
// from the parts, its compaction and the summary when p asks for them,
// and the step that renames the outputs into place.
func Construct(s beam.Scope, p *Plan) {
	elems := make([]string, len(p.Parts))
	for i, pt := range p.Parts {
		elems[i] = partJSON(pt)
	}
	parts := beam.Reshuffle(s, beam.CreateList(s, elems))
	outputs := map[string]string{kindMap: p.MapOutput}

	built := beam.ParDo(s, &buildPartFn{Spec: p.Build, TempDir: p.TempDir}, parts)
	mapped := beam.ParDo(s, &concatMapFn{Spec: p.Build, TempDir: p.TempDir}, beam.GroupByKey(s, beam.AddFixedKey(s, built)))
	finals := []beam.PCollection{mapped}

	if p.CompactOutput != "" {
		outputs[kindCompact] = p.CompactOutput
		n := p.CompactPieces
		if n <= 0 {
			n = len(p.Parts)
		}
		pieces := beam.ParDo(s, &planCompactFn{Spec: p.Compact, Pieces: n, TempDir: p.TempDir}, mapped)
		compacted := beam.ParDo(s, &compactPieceFn{Spec: p.Compact, TempDir: p.TempDir}, beam.Reshuffle(s, pieces))
		finals = append(finals, beam.ParDo(s, &concatCompactFn{TempDir: p.TempDir}, beam.GroupByKey(s, beam.AddFixedKey(s, compacted))))
	}
	if p.SummaryOutput != "" {
		outputs[kindSummary] = p.SummaryOutput
		sums := beam.ParDo(s, &summarizePartFn{Spec: p.Summary, TempDir: p.TempDir}, parts)
		finals = append(finals, beam.ParDo(s, &combineSummaryFn{Spec: p.Summary, TempDir: p.TempDir}, beam.GroupByKey(s, beam.AddFixedKey(s, sums))))
	}
	all := beam.Flatten(s, finals...)
	beam.ParDo0(s, &commitFn{Outputs: outputs, TempDir: p.TempDir}, beam.GroupByKey(s, beam.AddFixedKey(s, all)))
}

// Report is what a finished pipeline wrote: one Shard per output (Path
// its final path), with the summed stats.
type Report struct {
	Outputs []Shard
}

// Output returns the output of a kind ("map", "compact", "summary").
func (r *Report) Output(kind string) (Shard, bool) {
	for _, s := range r.Outputs {
		if s.Kind == kind {
			return s, true
		}
	}
	return Shard{}, false
}

// Run runs the pipeline of p on the named Beam runner ("prism", "flink",
// "spark", "dataflow", ...: beam.Run) and returns its report. The
// run's temporary folder (Plan.TempDir) is removed afterwards, whether
// the run failed or not.
//
// The outputs appear together or not at all: on error none of them is at
// its output path (a file that was there before the run is left as it
// was). When a step failed the error is a *Failure, whose message is that
// step's error (naming the input file and the part, or the output); any
// other error is the runner's, or ctx's.
//
// Each part of a plain file is read with the file's leading legend. A
// part in which a legend line changes the layout of the parts after it
// (two CDX files joined, whose legends differ) fails with an error
// wrapping cdxj.ErrPartLayout; Run then gives every part the legend in
// force where it starts (cdxj.File.SetLegends, a read of each file cut
// into parts up to its last part's start) and runs the pipeline again,
// once. Files without such a line are never read for their legends.
//
// While the runner runs, TMPDIR names the run's own folder (withTempDir),
// so a runner's stray temporary files are removed with it; Runs in one
// process therefore run one at a time.
func Run(ctx context.Context, runner string, p *Plan) (*Report, error) {
	if p.TempDir == "" {
		return nil, errors.New("pipeline: a plan of Preview cannot be run (make it with NewPlan)")
	}
	defer p.Cleanup()
	err := p.run(ctx, runner)
	if err != nil && !p.legends && fileExists(filepath.Join(p.TempDir, layoutName)) {
		// A legend line inside a file changed the layout: run again
		// with each part given the legend in force where it starts.
		if err := p.setLegends(ctx); err != nil {
			return nil, err
		}
		p.legends = true
		olds, _ := filepath.Glob(filepath.Join(p.TempDir, failedPrefix+"*"))
		for _, o := range append(olds, filepath.Join(p.TempDir, layoutName)) {
			os.Remove(o)
		}
		err = p.run(ctx, runner)
	}
	if err != nil {
		if f := readFailure(p.TempDir, err); f != nil {
			return nil, f
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("pipeline: the %s runner: %w", runner, err)
	}
	b, err := os.ReadFile(filepath.Join(p.TempDir, reportName))
	if err != nil {
		return nil, fmt.Errorf("pipeline: the run ended without its report (were the workers' files on the launcher's file system?): %w", err)
	}
	r := &Report{}
	if err := json.Unmarshal(b, &r.Outputs); err != nil {
		return nil, fmt.Errorf("pipeline: the report: %w", err)
	}
	return r, nil
}

// run runs the pipeline of p once on runner, and waits for the elements
// of a failed run that are still at work in this process.
func (p *Plan) run(ctx context.Context, runner string) error {
	bp, s := beam.NewPipelineWithRoot()
	Construct(s, p)
	err := withTempDir(p.TempDir, func() error { _, err := beam.Run(ctx, runner, bp); return err })
	if err != nil {
		// They stop at their next check of their context (prism cancels
		// it), or finish.
		waitIdle(p.TempDir, time.Minute)
	}
	return err
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// Cleanup removes the run's temporary folder, Plan.TempDir (a folder of
// its own that NewPlan made), and releases the output folders' locks; Run
// calls it, and a caller that makes a plan and does not run it does.
func (p *Plan) Cleanup() {
	defer p.unlock()
	if p.TempDir == "" {
		return
	}
	// A file created while RemoveAll empties the folder (an element of a
	// failed run) makes it fail: try again.
	for range 5 {
		if os.RemoveAll(p.TempDir) == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// tempDirEnv guards TMPDIR while beam.Run runs.
var tempDirEnv sync.Mutex

// withTempDir runs f with the environment variable TMPDIR set to dir, and
// restores it after. Beam's in-process runner writes a file for its
// loopback worker into os.TempDir() and leaves it; with TMPDIR at the
// run's own folder that file goes with the folder. Runs in one process
// wait for each other here.
func withTempDir(dir string, f func() error) error {
	tempDirEnv.Lock()
	defer tempDirEnv.Unlock()
	old, had := os.LookupEnv("TMPDIR")
	if err := os.Setenv("TMPDIR", dir); err != nil {
		return f()
	}
	defer func() {
		if had {
			os.Setenv("TMPDIR", old)
		} else {
			os.Unsetenv("TMPDIR")
		}
	}()
	return f()
}
