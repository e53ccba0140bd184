// Package sampledata embeds the real CDX and CDXJ index files and the public
// test cases that the project's tests, benchmarks and demo share.
//
// The files come from public, permissively licensed repositories; README.md in
// real/ is their provenance table (source repository, commit, path, licence,
// format and line count). Nothing here is read from outside the module, so a
// fresh checkout has everything its tests need.
package sampledata

import (
	"embed"
	"io/fs"
	"sort"
)

// FS holds real/ (index files, their provenance README and expected/ counts)
// and cases/ (public_cases.tsv and the recorded aggregator transcripts).
//
//go:embed real cases
var FS embed.FS

// IndexFiles returns the names (paths inside FS, such as
// "real/openwayback_archive-org.cdx") of every shipped index file, sorted.
func IndexFiles() []string {
	var names []string
	entries, _ := fs.ReadDir(FS, "real")
	for _, e := range entries {
		if e.IsDir() || e.Name() == "README.md" {
			continue
		}
		names = append(names, "real/"+e.Name())
	}
	sort.Strings(names)
	return names
}

// ReadFile returns the bytes of one embedded file, such as
// "real/ipwb_sample-1.cdxj" or "cases/public_cases.tsv". A name not
// embedded gives embed.FS's *fs.PathError wrapping fs.ErrNotExist.
func ReadFile(name string) ([]byte, error) { return FS.ReadFile(name) }
