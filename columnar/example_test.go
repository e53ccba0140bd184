package columnar_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/columnar"
)

// Export a CDXJ index to a table partitioned by year, then read it back.
func Example() {
	dir, err := os.MkdirTemp("", "columnar-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	index := `com,example)/ 20130411205457 {"url": "http://www.example.com/", "mime": "text/html", "status": "200", "length": "1219", "offset": "0", "filename": "LOC-EOT-2013-0001.warc.gz"}
com,example)/ 20140101120000 {"url": "http://www.example.com/", "mime": "warc/revisit", "length": "340", "offset": "1219", "filename": "LOC-EOT-2013-0001.warc.gz"}
`
	t, err := columnar.Create(filepath.Join(dir, "captures"), &columnar.Options{Partition: columnar.ByYear})
	if err != nil {
		log.Fatal(err)
	}
	defer t.Close()
	if err := t.ReadIndex(context.Background(), cdxj.NewStream("index.cdxj", strings.NewReader(index), nil), "index.cdxj", false); err != nil {
		log.Fatal(err)
	}
	if err := t.Commit(); err != nil {
		log.Fatal(err)
	}
	files, _ := columnar.Files(filepath.Join(dir, "captures"))
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f)
		fmt.Println(filepath.ToSlash(rel))
	}
	for r, err := range columnar.ReadRows(filepath.Join(dir, "captures")) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(r.FetchTime.Format("2006-01-02"), r.URLHostRegisteredDomain, r.FetchStatus, r.Organization, r.ContentMIMECategory, r.Revisit, r.RecordKey)
	}
	// Output:
	// captures/year=2013/part-00000.parquet
	// captures/year=2014/part-00000.parquet
	// 2013-04-11 example.com 200 LOC html false G2XYQKYYA7FDUZNUWXMWRM36GA7DOCJF
	// 2014-01-01 example.com -1 LOC other true DPJNLSJOCP7QZHPVMXR2OFKJ246SFILM
}

// Write summaries as the summary table.
func ExampleSummaryWriter() {
	var out strings.Builder
	w := columnar.NewSummaryWriter(&out, nil)
	err := w.AddSummary(strings.NewReader(`example.com {"2013": {"n_html": 3, "n_image": 1, "n_total": 4, "s_html": 3000, "s_image": 200, "s_total": 3200}}
`), "archive-a.summary")
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(w.Rows(), "rows,", out.Len() > 0)
	// Output: 2 rows, true
}
