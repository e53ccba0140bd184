package cdxj_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mementokit/mementokit/cdxj"
)

// A TimeMap query by binary search in a sorted CDXJ file: the captures of
// one URL in 2014, as a CDX server answers url=example.com&from=2014&to=2014.
func ExampleSorted_Lines() {
	const index = `com,example)/ 20131231235959 {"status": "200"}
com,example)/ 20140101000000 {"status": "200"}
com,example)/ 20140615120000 {"status": "404"}
com,example)/ 20150101000000 {"status": "200"}
com,example)/about 20140301000000 {"status": "200"}
`
	s := cdxj.NewSorted(strings.NewReader(index), int64(len(index)))
	q, err := cdxj.QueryForURL("http://example.com/", cdxj.MatchExact)
	if err != nil {
		fmt.Println(err)
		return
	}
	q.From, q.To = "2014", "2014"
	for line, err := range s.Lines(q) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(string(line))
	}
	// Output:
	// com,example)/ 20140101000000 {"status": "200"}
	// com,example)/ 20140615120000 {"status": "404"}
}

// Building a ZipNum cluster and querying it through its secondary index.
func ExampleCreateCluster() {
	dir, err := os.MkdirTemp("", "zipnum")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	w, err := cdxj.CreateCluster(dir, "index", &cdxj.ClusterOptions{LinesPerBlock: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	for _, line := range []string{
		"com,example)/ 20140101000000 {}",
		"com,example)/a 20150101000000 {}",
		"com,example,www)/ 20160101000000 {}",
		"org,example)/ 20170101000000 {}",
	} {
		if err := w.WriteLine([]byte(line)); err != nil {
			fmt.Println(err)
			return
		}
	}
	if err := w.Commit(); err != nil {
		fmt.Println(err)
		return
	}
	c, err := cdxj.OpenCluster(filepath.Join(dir, "index.idx"), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	for e, err := range c.Entries() {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("block %d of %s starts at %q\n", e.Block, e.Part, e.Key)
	}
	for rec, err := range c.Records(cdxj.Query{Key: "com,example", Match: cdxj.MatchDomain}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(string(rec.Key()), string(rec.Timestamp()))
	}
	// Output:
	// block 1 of index-00000.gz starts at "com,example)/ 20140101000000"
	// block 2 of index-00000.gz starts at "com,example,www)/ 20160101000000"
	// com,example)/ 20140101000000
	// com,example)/a 20150101000000
	// com,example,www)/ 20160101000000
}
