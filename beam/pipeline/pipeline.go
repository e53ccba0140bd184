package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"slices"

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

func decodePart(elem string) (cdxj.Part, error) {
	var p cdxj.Part
	if err := json.Unmarshal([]byte(elem), &p); err != nil {
		return p, fmt.Errorf("pipeline: a part element %.80q: %w", elem, err)
	}
	return p, nil
}

// writeShard writes path through atomicfile (whole or not at all, so a
// retried bundle rewrites it cleanly) with write.
func writeShard(path string, write func(w io.Writer) error) error {
	f, err := atomicfile.Create(path, nil)
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
	p, err := decodePart(elem)
	if err != nil {
		return err
	}
	ix, err := cdxj.Open(ctx, p.Source, nil)
	if err != nil {
		return partError(p, "opening the input", err)
	}
	defer ix.Close()
	path := shardPath(f.TempDir, kindMap, p.Seq)
	var st mementomap.BuildStats
	err = writeShard(path, func(w io.Writer) error {
		st, err = mementomap.BuildPart(ctx, w, ix, p, f.Spec.Options(f.TempDir))
		return err
	})
	if err != nil {
		return partError(p, "building its map", err)
	}
	emit(Shard{Kind: kindMap, Seq: p.Seq, Of: p.Of, Path: path, Part: p.String(), Build: &st}.encode())
	return nil
}

// partIndex is one part of an index as a cdxj.Searcher whose whole walk
// is the part (for summary.Summarizer.ReadIndex).
type partIndex struct {
	ix cdxj.Index
	p  cdxj.Part
}

func (x partIndex) Records(q cdxj.Query) iter.Seq2[*cdxj.Record, error] {
	if q != (cdxj.Query{}) {
		return func(yield func(*cdxj.Record, error) bool) {
			yield(nil, errors.New("pipeline: a part is read whole"))
		}
	}
	return cdxj.PartRecords(x.ix, x.p)
}

func (x partIndex) Lines(q cdxj.Query) iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		yield(nil, errors.New("pipeline: a part's lines are read as records"))
	}
}

// summarizePartFn summarizes one part into a partial summary.
type summarizePartFn struct {
	Spec    SummarySpec
	TempDir string
}

func (f *summarizePartFn) ProcessElement(ctx context.Context, elem string, emit func(string)) error {
	p, err := decodePart(elem)
	if err != nil {
		return err
	}
	ix, err := cdxj.Open(ctx, p.Source, nil)
	if err != nil {
		return partError(p, "opening the input", err)
	}
	defer ix.Close()
	s := summary.New(f.Spec.Options())
	if err := s.ReadIndex(ctx, partIndex{ix, p}, f.Spec.SkipBad); err != nil {
		return partError(p, "summarizing it", err)
	}
	path := shardPath(f.TempDir, kindSummary, p.Seq)
	if err := writeShard(path, func(w io.Writer) error { _, err := s.WriteTo(w); return err }); err != nil {
		return partError(p, "writing its summary", err)
	}
	st := s.Stats()
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

// openAll opens the shards' files.
func openAll(shards []Shard) ([]*os.File, func(), error) {
	fs := make([]*os.File, 0, len(shards))
	done := func() {
		for _, f := range fs {
			f.Close()
		}
	}
	for _, s := range shards {
		f, err := os.Open(s.Path)
		if err != nil {
			done()
			return nil, nil, fmt.Errorf("pipeline: %s shard %d of %d (%s): %w", s.Kind, s.Seq, s.Of, s.Part, err)
		}
		fs = append(fs, f)
	}
	return fs, done, nil
}

// concatMapFn concatenates the partial maps into the map.
type concatMapFn struct {
	Spec    BuildSpec
	TempDir string
}

func (f *concatMapFn) ProcessElement(ctx context.Context, _ int, values func(*string) bool, emit func(string)) error {
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
		if errors.Is(err, mementomap.ErrPartsOverlap) {
			return fmt.Errorf("pipeline: the inputs are not sorted into disjoint ascending key ranges (see the package documentation): %w", err)
		}
		return fmt.Errorf("pipeline: concatenating the partial maps: %w", err)
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
		return fmt.Errorf("pipeline: cutting %s for compaction: %w", m.Path, err)
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
	pc, err := decodeShard(elem)
	if err != nil {
		return err
	}
	mf, err := os.Open(pc.Path)
	if err != nil {
		return fmt.Errorf("pipeline: compaction piece %d of %d: %w", pc.Seq, pc.Of, err)
	}
	defer mf.Close()
	path := shardPath(f.TempDir, kindCompact, pc.Seq)
	var st mementomap.CompactStats
	err = writeShard(path, func(w io.Writer) error {
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
			return fmt.Errorf("pipeline: summary shard %d of %d (%s): %w", s.Seq, s.Of, s.Part, err)
		}
		err = c.AddSummary(in, s.Path)
		in.Close()
		if err != nil {
			return fmt.Errorf("pipeline: combining summary shard %d of %d (%s): %w", s.Seq, s.Of, s.Part, err)
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

// commitFn renames the finished outputs into place, once every one the
// plan asks for is there, and writes the report.
type commitFn struct {
	Outputs map[string]string // kind → final path
	TempDir string
}

// reportName is the file in the temporary folder where commitFn leaves
// the stats of the finished outputs, for Run.
const reportName = "report.json"

func (f *commitFn) ProcessElement(ctx context.Context, _ int, values func(*string) bool) error {
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
	var rep []Shard
	for _, kind := range []string{kindMap, kindCompact, kindSummary} {
		s, ok := got[kind]
		if !ok {
			continue
		}
		final := f.Outputs[kind]
		if err := os.Chmod(s.Path, 0o644); err != nil {
			return fmt.Errorf("pipeline: %w", err)
		}
		if err := os.Rename(s.Path, final); err != nil {
			return fmt.Errorf("pipeline: putting the %s output in place: %w", kind, err)
		}
		if err := syncDir(filepath.Dir(final)); err != nil {
			return fmt.Errorf("pipeline: %w", err)
		}
		s.Path = final
		rep = append(rep, s)
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return writeShard(filepath.Join(f.TempDir, reportName), func(w io.Writer) error { _, err := w.Write(b); return err })
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
// temporary folder is removed afterwards, whether the run failed or not
// (when NewPlan made it; otherwise the files the pipeline wrote in it). On
// error nothing has been renamed onto the output paths, unless the error
// came after the renames (then the report says which are in place).
func Run(ctx context.Context, runner string, p *Plan) (*Report, error) {
	defer p.cleanup()
	bp, s := beam.NewPipelineWithRoot()
	Construct(s, p)
	if _, err := beam.Run(ctx, runner, bp); err != nil {
		return nil, err
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

// cleanup removes the temporary folder (or the pipeline's files in it).
func (p *Plan) cleanup() {
	if p.madeTemp {
		os.RemoveAll(p.TempDir)
		return
	}
	for _, pat := range []string{kindMap, kindMap + "-[0-9]*", kindCompact, kindCompact + "-[0-9]*", kindSummary, kindSummary + "-[0-9]*", reportName} {
		m, _ := filepath.Glob(filepath.Join(p.TempDir, pat))
		for _, f := range m {
			os.Remove(f)
		}
	}
}
