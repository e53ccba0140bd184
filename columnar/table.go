package columnar

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/summary"
)

// Partition selects how a Table splits its rows into folders.
type Partition uint8

const (
	// NoPartition writes one Parquet file.
	NoPartition Partition = iota
	// ByYear writes a folder of year=YYYY/ sub-folders (the capture year).
	ByYear
	// ByCrawl writes a folder of crawl=NAME/ sub-folders (the Crawl
	// column: Common Crawl's CC-MAIN-2017-34, the End of Term's EOT-2008);
	// rows without a crawl go to crawl=__HIVE_DEFAULT_PARTITION__, which
	// engines read as NULL.
	ByCrawl
)

// String returns "none", "year" or "crawl".
func (p Partition) String() string {
	switch p {
	case ByYear:
		return "year"
	case ByCrawl:
		return "crawl"
	}
	return "none"
}

// ParsePartition parses "none" (or ""), "year" or "crawl". Any other value
// is an error naming it and the three.
func ParsePartition(s string) (Partition, error) {
	switch s {
	case "", "none":
		return NoPartition, nil
	case "year":
		return ByYear, nil
	case "crawl":
		return ByCrawl, nil
	}
	return 0, fmt.Errorf("columnar: partition %q: want none, year or crawl", s)
}

// HiveNull is the folder value Hive, Spark and DuckDB read as NULL.
const HiveNull = "__HIVE_DEFAULT_PARTITION__"

// DefaultMaxOpenPartitions is the number of partitions a Table writes at
// the same time when Options.MaxOpenPartitions is 0.
const DefaultMaxOpenPartitions = 64

// Options configures a Writer or a Table. The zero value (or nil) means
// defaults.
type Options struct {
	// RowGroupRows is the number of rows per row group (default
	// DefaultRowGroupRows).
	RowGroupRows int
	// Partition splits a Table into Hive-style folders (default one file).
	Partition Partition
	// MaxOpenPartitions bounds the partitions a Table writes at once
	// (default DefaultMaxOpenPartitions). Past it, the partition written
	// least recently is finished, and its next row starts a new part file.
	MaxOpenPartitions int
	// Org maps WARC file names to organizations; nil means
	// summary.OrgByPrefix. Use the same rule as summary.Daily to get its
	// series from SQL.
	Org summary.OrgFunc
	// BufferDir, when set, holds the compressed pages of the row groups
	// being written in temporary files there instead of memory. A Table
	// uses its temporary folder unless BufferDir is set.
	BufferDir string
	// Logger, when not nil, receives a warning for the first skipped line.
	Logger *slog.Logger
}

func (o *Options) withDefaults() Options {
	var v Options
	if o != nil {
		v = *o
	}
	if v.RowGroupRows <= 0 {
		v.RowGroupRows = DefaultRowGroupRows
	}
	if v.MaxOpenPartitions <= 0 {
		v.MaxOpenPartitions = DefaultMaxOpenPartitions
	}
	return v
}

// Stats counts what a Table wrote and skipped.
type Stats struct {
	Rows     int64 // rows written
	BadLines int64 // input lines skipped as malformed (ReadIndex with skipBad)
	// BlankLines counts the blank (empty) input lines ReadIndex passed
	// over (cdxj.Query.Blank): no record, no error, not BadLines.
	BlankLines int64
	// NoLength counts the rows whose warc_record_length is -1: missing,
	// "-", not a number, or above summary.MaxRecordLength.
	NoLength int64
	// NoStatus counts the rows whose fetch_status is -1: missing, "-",
	// or not a three-digit HTTP status (out of range, not a number).
	NoStatus int64
	Files    int // Parquet files written
}

// Table writes a capture table to a path: one Parquet file, or with
// Options.Partition a folder of Hive-style partitions
// (year=2014/part-00000.parquet). Everything is written under a temporary
// name beside the path and renamed onto it by Commit, so an interrupted
// export never leaves a partial table; Close without Commit removes it.
//
// Memory: per open partition (at most Options.MaxOpenPartitions), one page
// of values per column being filled (64 KiB each) and the dictionaries of
// the row group being written (tens of MiB at the default row group size);
// compressed pages of unfinished row groups go to temporary files in the
// temporary folder. Not safe for concurrent use.
type Table struct {
	path     string
	tmp      string // temporary file (NoPartition) or folder
	opts     Options
	conv     *Converter
	parts    map[string]*partFile // by partition folder name
	seq      map[string]int       // next part number by partition
	clock    int64
	stats    Stats
	row      Row
	done     bool
	replaced os.FileMode
}

// partFile is one Parquet file being written.
type partFile struct {
	f     *os.File
	w     *Writer
	used  int64 // clock of the last row
	final string
}

// Create starts a Table at path. Without partitioning, path is a file,
// replaced by Commit if it exists (it keeps its mode; a new one gets
// 0644). With partitioning, path is a folder that must not exist or be
// empty: a table is never mixed with older files. Errors name path (or
// the temporary one beside it): a path without a file name, a folder given
// for a table without partitions, a partitioned table's folder that holds
// files, and a temporary file or folder that cannot be made beside path.
func Create(path string, opts *Options) (*Table, error) {
	o := opts.withDefaults()
	t := &Table{path: path, opts: o, conv: NewConverter(o.Org), parts: map[string]*partFile{}, seq: map[string]int{}}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if base == "" {
		return nil, fmt.Errorf("columnar: %q names no file", path)
	}
	if o.Partition == NoPartition {
		t.replaced = 0o644
		if st, err := os.Stat(path); err == nil {
			if st.IsDir() {
				return nil, fmt.Errorf("columnar: %s is a folder; a table without partitions is one file", path)
			}
			t.replaced = st.Mode().Perm()
		}
		f, err := os.CreateTemp(dir, "."+base+".tmp-*")
		if err != nil {
			return nil, fmt.Errorf("columnar: %w", err)
		}
		t.tmp = f.Name()
		if err := f.Chmod(t.replaced); err != nil {
			f.Close()
			os.Remove(t.tmp)
			return nil, fmt.Errorf("columnar: %w", err)
		}
		bufDir := o.BufferDir
		if bufDir == "" {
			bufDir = dir
		}
		bo := o
		bo.BufferDir = bufDir
		t.parts[""] = &partFile{f: f, w: NewWriter(f, &bo), final: path}
		t.stats.Files = 1
		return t, nil
	}
	if err := checkEmptyDir(path); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("columnar: %w", err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("columnar: %w", err)
	}
	t.tmp = tmp
	if t.opts.BufferDir == "" {
		t.opts.BufferDir = tmp
	}
	return t, nil
}

// checkEmptyDir accepts a path that does not exist or is an empty folder.
func checkEmptyDir(path string) error {
	st, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("columnar: %w", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("columnar: %s exists and is not a folder; a partitioned table is a folder", path)
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return fmt.Errorf("columnar: %w", err)
	}
	if len(entries) > 0 {
		return fmt.Errorf("columnar: %s is not empty (remove it, or choose another folder: a table is never mixed with older files)", path)
	}
	return nil
}

// AddRecord converts rec, read from the input called input, and writes its
// row. A CDXJ record whose JSON block is malformed gives its
// *cdxj.ParseError and writes nothing.
func (t *Table) AddRecord(rec *cdxj.Record, input string) error {
	if err := t.conv.Row(&t.row, rec, input); err != nil {
		return err
	}
	if err := t.WriteRow(&t.row); err != nil {
		return err
	}
	t.recycle()
	return nil
}

// recycle lets the Converter write its string block again once half of it
// is used: every Writer copies a row's values as it takes the row, so no
// row converted so far is held.
func (t *Table) recycle() {
	if len(t.conv.arena) >= arenaBlock/2 {
		t.conv.recycle()
	}
}

// WriteRow writes one row to its partition. Errors: a Table committed or
// closed, a partition file that cannot be opened, a failed write; Close
// then removes the temporary files.
func (t *Table) WriteRow(row *Row) error {
	if t.done {
		return errClosed
	}
	p, err := t.partition(row)
	if err != nil {
		return err
	}
	t.clock++
	p.used = t.clock
	if err := p.w.Write(row); err != nil {
		return err
	}
	t.stats.Rows++
	if row.WARCRecordLength < 0 {
		t.stats.NoLength++
	}
	if row.FetchStatus < 0 {
		t.stats.NoStatus++
	}
	return nil
}

// partition returns the open file of row's partition, opening it (and
// finishing the least recently used one past MaxOpenPartitions).
func (t *Table) partition(row *Row) (*partFile, error) {
	var name string
	switch t.opts.Partition {
	case NoPartition:
		return t.parts[""], nil
	case ByYear:
		name = "year=" + strconv.Itoa(row.FetchTime.Year())
	case ByCrawl:
		name = "crawl=" + hiveEscape(row.Crawl)
	}
	if p := t.parts[name]; p != nil {
		return p, nil
	}
	if len(t.parts) >= t.opts.MaxOpenPartitions {
		var lru string
		var oldest int64 = -1
		for k, p := range t.parts {
			if oldest < 0 || p.used < oldest {
				lru, oldest = k, p.used
			}
		}
		if err := t.finish(lru); err != nil {
			return nil, err
		}
	}
	dir := filepath.Join(t.tmp, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("columnar: %w", err)
	}
	n := t.seq[name]
	t.seq[name] = n + 1
	final := filepath.Join(dir, fmt.Sprintf("part-%05d.parquet", n))
	f, err := os.OpenFile(final+".tmp", os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("columnar: %w", err)
	}
	p := &partFile{f: f, w: NewWriter(f, &t.opts), final: final}
	t.parts[name] = p
	t.stats.Files++
	return p, nil
}

// finish closes a partition's file and gives it its final name.
func (t *Table) finish(name string) error {
	p := t.parts[name]
	delete(t.parts, name)
	err := p.w.Close()
	if err == nil {
		err = p.f.Sync()
	}
	if cerr := p.f.Close(); err == nil {
		err = cerr
	}
	if err == nil && p.final != t.path {
		err = os.Rename(p.f.Name(), p.final)
	}
	if err != nil {
		return fmt.Errorf("columnar: writing %s: %w", p.final, err)
	}
	return nil
}

// hiveEscape gives a partition value as Hive writes it in a folder name:
// characters that are special in paths or in "key=value" percent-encoded,
// and the empty value as HiveNull.
func hiveEscape(v string) string {
	if v == "" {
		return HiveNull
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c < 0x20 || c >= 0x7f || strings.IndexByte("\"#%'*/:=?\\{[]^ ", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// ReadIndex writes a row per record of a whole index (src.Records of the
// empty cdxj.Query: every line of a file, a ZipNum cluster, a CDX server's
// scope; see cdxj.Open), with name as input_file. A malformed line (see
// Converter.Row) is an error wrapping its *cdxj.ParseError, or with skipBad
// is counted in Stats().BadLines (the first one is logged to
// Options.Logger); blank lines are counted in Stats().BlankLines; a read
// error ends the input and is returned. Both name
// their source once: the *cdxj.ParseError's Source when it has one, else
// name. ctx stops the walk between records.
func (t *Table) ReadIndex(ctx context.Context, src cdxj.Searcher, name string, skipBad bool) error {
	i := 0
	for rec, err := range src.Records(cdxj.Query{Blank: &t.stats.BlankLines}) {
		if i++; i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err == nil {
			if err = t.conv.Row(&t.row, rec, name); err == nil {
				if err := t.WriteRow(&t.row); err != nil {
					return err
				}
				t.recycle()
				continue
			}
		}
		var pe *cdxj.ParseError
		if !errors.As(err, &pe) || !skipBad {
			if pe != nil && pe.Source != "" {
				return fmt.Errorf("columnar: %w", err) // the *cdxj.ParseError names its source
			}
			return fmt.Errorf("columnar: %s: %w", name, err)
		}
		t.skipped(name, pe.Line, err)
	}
	return ctx.Err()
}

// skipped counts a bad line, logging the first.
func (t *Table) skipped(name string, line int64, err error) {
	t.stats.BadLines++
	if t.opts.Logger != nil && t.stats.BadLines == 1 {
		t.opts.Logger.Warn("columnar: skipped a bad line (first occurrence)", "file", name, "line", line, "err", err)
	}
}

// Stats returns the counts so far.
func (t *Table) Stats() Stats { return t.stats }

// Commit finishes every file and renames the table onto its path. After
// Commit, Close does nothing. On error (a file that cannot be finished, a
// partitioned table's folder that gained files meanwhile, a failed
// rename; Commit after Commit or Close) the temporary files are removed
// and path is untouched.
func (t *Table) Commit() error {
	if t.done {
		return errClosed
	}
	for name := range t.parts {
		if err := t.finish(name); err != nil {
			t.abort()
			return err
		}
	}
	t.done = true
	if t.opts.Partition == NoPartition {
		if err := os.Rename(t.tmp, t.path); err != nil {
			os.Remove(t.tmp)
			return fmt.Errorf("columnar: %w", err)
		}
		return nil
	}
	if err := checkEmptyDir(t.path); err != nil {
		os.RemoveAll(t.tmp)
		return err
	}
	os.Remove(t.path) // an empty folder, or nothing
	if err := os.Rename(t.tmp, t.path); err != nil {
		os.RemoveAll(t.tmp)
		return fmt.Errorf("columnar: %w", err)
	}
	return nil
}

// Close abandons a table that was not committed, removing its temporary
// files; after Commit it does nothing.
func (t *Table) Close() error {
	if t.done {
		return nil
	}
	t.abort()
	return nil
}

func (t *Table) abort() {
	t.done = true
	for _, p := range t.parts {
		p.w.release()
		p.f.Close()
	}
	t.parts = nil
	if t.opts.Partition == NoPartition {
		os.Remove(t.tmp)
	} else {
		os.RemoveAll(t.tmp)
	}
}
