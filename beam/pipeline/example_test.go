package pipeline_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"

	"github.com/mementokit/mementokit/beam/pipeline"
)

// Example builds the MementoMap of an index cut into two sorted CDXJ
// files on Beam's prism runner, in this process. (A program calls
// beam.Init at the start of main, so that its binary can also be a
// cluster runner's worker.)
func Example() {
	dir, err := os.MkdirTemp("", "pipeline-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	files := map[string]string{
		"cdx-00000.cdxj": `com,example)/ 20200101000000 {"url": "https://example.com/", "status": "200"}
com,example)/ 20210101000000 {"url": "https://example.com/", "status": "200"}
com,example)/about 20200101000000 {"url": "https://example.com/about", "status": "200"}
`,
		"cdx-00001.cdxj": `org,example)/ 20200101000000 {"url": "https://example.org/", "status": "200"}
org,example)/?lang=pt 20200101000000 {"url": "https://example.org/?lang=pt", "status": "200"}
`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			fmt.Println(err)
			return
		}
	}
	c := &pipeline.Config{
		Inputs:    []string{filepath.Join(dir, "cdx-*.cdxj")},
		MapOutput: filepath.Join(dir, "archive.map"),
		Build:     pipeline.BuildSpec{ArchiveID: "https://archive.example/", UpdatedAt: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)},
	}
	p, err := pipeline.NewPlan(context.Background(), c)
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := pipeline.Run(context.Background(), "prism", p)
	if err != nil {
		fmt.Println(err)
		return
	}
	m, _ := rep.Output("map")
	fmt.Printf("%d parts, %d records, %d keys, %d URI-Rs\n", len(p.Parts), m.Build.Records, m.Build.Keys, m.Build.URIRs)
	b, err := os.ReadFile(c.MapOutput)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(b))
	// Output:
	// 2 parts, 5 records, 3 keys, 4 URI-Rs
	// !context ["https://oduwsdl.github.io/contexts/ukvs"]
	// !id {"uri":"https://archive.example/"}
	// !fields {"keys": ["surt"], "values": ["frequency"]}
	// !meta {"name":"","type":"MementoMap","updated_at":"2026-12-01T00:00:00Z"}
	// com,example)/ 2/1
	// com,example)/about 1/1
	// org,example)/ 2/2
}
