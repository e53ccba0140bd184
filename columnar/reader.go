package columnar

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// Files returns the Parquet files of the table at path, sorted: path itself
// when it is a file, else every *.parquet file under it (partition folders
// included; names starting with '.' or '_' are skipped, as Hive and Spark
// skip them). A path that cannot be stat'ed, or a folder under it that
// cannot be read, gives an error prefixed "columnar: " wrapping the
// *fs.PathError, which names the path.
func Files(path string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("columnar: %w", err)
	}
	if !st.IsDir() {
		return []string{path}, nil
	}
	var files []string
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if p != path && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() && strings.HasSuffix(name, ".parquet") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("columnar: %w", err)
	}
	slices.Sort(files)
	return files, nil
}

// ReadRows returns the rows of the table at path (see Files), file after
// file in the order of Files, and in each file in the order written. Every
// row is a new value. An error names the file; iteration stops after it.
// Memory: one row group's pages of one file at a time.
func ReadRows(path string) iter.Seq2[*Row, error] {
	return func(yield func(*Row, error) bool) {
		files, err := Files(path)
		if err != nil {
			yield(nil, err)
			return
		}
		for _, name := range files {
			if !readFile(name, yield) {
				return
			}
		}
	}
}

// Rows returns the rows of one Parquet file of size bytes read from r, in
// the order written; name is used in errors. A file this package did not
// write is an error wrapping ErrNotCaptureTable. Every row is a new value.
func Rows(r io.ReaderAt, size int64, name string) iter.Seq2[*Row, error] {
	return func(yield func(*Row, error) bool) { readRows(r, size, name, yield) }
}

// readFile yields the rows of one file; false means stop.
func readFile(name string, yield func(*Row, error) bool) bool {
	f, err := os.Open(name)
	if err != nil {
		return yield(nil, fmt.Errorf("columnar: %w", err))
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return yield(nil, fmt.Errorf("columnar: %w", err))
	}
	return readRows(f, st.Size(), name, yield)
}

// readRows yields the rows of one file; false means stop.
func readRows(f io.ReaderAt, size int64, name string, yield func(*Row, error) bool) bool {
	pf, err := parquet.OpenFile(f, size)
	if err != nil {
		return yield(nil, fmt.Errorf("columnar: %s: %w", name, err))
	}
	if v, ok := pf.Lookup("mementokit.schema"); !ok || v != SchemaName {
		return yield(nil, fmt.Errorf("columnar: %s: %w", name, ErrNotCaptureTable))
	}
	r := parquet.NewGenericReader[Row](pf)
	defer r.Close()
	buf := make([]Row, 256)
	for {
		n, err := r.Read(buf)
		for i := range n {
			row := buf[i]
			row.FetchTime = row.FetchTime.UTC()
			if !yield(&row, nil) {
				return false
			}
		}
		if errors.Is(err, io.EOF) {
			return true
		}
		if err != nil {
			return yield(nil, fmt.Errorf("columnar: %s: %w", name, err))
		}
	}
}

// ErrNotCaptureTable is the cause when a Parquet file was not written by
// this package (its metadata lacks SchemaName).
var ErrNotCaptureTable = errors.New("not a capture table written by package columnar")
