// Package clustertest writes one index in each of the shapes archives keep
// it in, so that the tests of every tool that reads indexes can check that
// each shape gives the same records as the flat file:
//
//   - a flat, sorted CDX file;
//   - a ZipNum cluster of pywb's shape (its sample_archive/zipcdx): blocks
//     of 5 lines in one part file, no block ending in "\n", a
//     tab-separated .idx with block numbers, and a .loc whose first
//     location does not exist;
//   - a ZipNum cluster in the Common Crawl layout: cluster.idx beside
//     cdx-00000.gz, cdx-00001.gz, ..., no .loc, blocks ending in "\n".
//
// The lines are real, from internal/sampledata (see real/README.md there
// for provenance): the Common Crawl CDXJ, the Internet Archive CDX-server
// and the cdxj-indexer POST samples whole, and lines picked evenly from
// the Internet Archive CDX sample, sorted byte-wise together. The package
// is for tests only.
package clustertest

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/sampledata"
)

// Shapes are the paths of one index written in every shape.
type Shapes struct {
	Lines []string // the index lines, sorted, without line ends

	Flat string // the flat CDX file

	PywbIdx  string // the pywb-shaped cluster's .idx
	PywbDir  string // its folder (one .idx in it)
	PywbPart string // its part file: one gzip member per 5 lines

	CCIdx string // the Common Crawl cluster.idx
	CCDir string // its folder
}

// PywbBlocks is the number of blocks of the pywb-shaped cluster that Write
// makes from SampleLines(t, 190): 38 blocks of 5 lines, as pywb's sample.
const PywbBlocks = 38

// SampleLines returns n real index lines (see the package doc; n at most
// 2195), sorted byte-wise.
func SampleLines(t testing.TB, n int) []string {
	t.Helper()
	read := func(name string) []string {
		b, err := sampledata.ReadFile("real/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	}
	var lines []string
	for _, f := range []string{"cc_commoncrawl-org_from-cdxapi.cdxj", "ia_cdxapi_from-json.cdx7", "cdxjindexer_post-append.cdxj"} {
		lines = append(lines, read(f)...)
	}
	ia := read("openwayback_archive-org.cdx")
	if rest := n - len(lines); rest > 0 {
		for i := range rest {
			lines = append(lines, ia[i*len(ia)/rest])
		}
	}
	slices.Sort(lines)
	return lines[:min(n, len(lines))]
}

// Write writes lines (sorted, without line ends) in every shape under dir.
func Write(t testing.TB, dir string, lines []string) Shapes {
	t.Helper()
	s := Shapes{Lines: lines, Flat: filepath.Join(dir, "flat.cdx")}
	if err := os.WriteFile(s.Flat, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.PywbDir = filepath.Join(dir, "zipcdx")
	writeCluster(t, s.PywbDir, "zipnum", lines, &cdxj.ClusterOptions{LinesPerBlock: 5, NoFinalNewline: true})
	s.PywbIdx = filepath.Join(s.PywbDir, "zipnum.idx")
	s.PywbPart = filepath.Join(s.PywbDir, "zipnum-00000.gz")
	// As pywb's zipnum-bad.loc: lines for other parts, one without a
	// location, and a first location that does not exist.
	loc := "bar\t./invalid\nfoo2\nzipnum-00000.gz\t./x-bad-path-to-ignore-x\tzipnum-00000.gz\n"
	if err := os.WriteFile(filepath.Join(s.PywbDir, "zipnum.loc"), []byte(loc), 0o644); err != nil {
		t.Fatal(err)
	}
	s.CCDir = filepath.Join(dir, "cc", "indexes")
	writeCluster(t, s.CCDir, "cdx", lines, &cdxj.ClusterOptions{LinesPerBlock: 30, BlocksPerPart: 3})
	s.CCIdx = filepath.Join(s.CCDir, "cluster.idx")
	if err := os.Rename(filepath.Join(s.CCDir, "cdx.idx"), s.CCIdx); err != nil {
		t.Fatal(err)
	}
	return s
}

func writeCluster(t testing.TB, dir, name string, lines []string, opt *cdxj.ClusterOptions) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := cdxj.CreateCluster(dir, name, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, l := range lines {
		if err := w.WriteLine([]byte(l)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
}

// Inputs returns the shapes to give a tool, by name: each must give the
// records of the flat file (the part file gives all of them too, as its
// cluster has one part).
func (s Shapes) Inputs() []struct{ Name, Path string } {
	return []struct{ Name, Path string }{
		{"flat file", s.Flat},
		{"pywb cluster by .idx", s.PywbIdx},
		{"pywb cluster by folder", s.PywbDir},
		{"pywb part file (members without final newline)", s.PywbPart},
		{"Common Crawl cluster.idx", s.CCIdx},
		{"Common Crawl folder", s.CCDir},
	}
}

// CheckMembers fails t unless the part file at path holds blocks gzip
// members none of which ends in "\n": the shape the tests rely on.
func CheckMembers(t testing.TB, path string, blocks int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	for b, err := range cdxj.ReadBlocks(f, 0) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if bytes.HasSuffix(b.Data, []byte("\n")) {
			t.Fatalf("%s: block %d ends in a newline", path, n)
		}
	}
	if n != blocks {
		t.Fatalf("%s: %d gzip members, want %d", path, n, blocks)
	}
}
