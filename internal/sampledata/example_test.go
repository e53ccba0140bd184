package sampledata_test

import (
	"bytes"
	"fmt"

	"github.com/mementokit/mementokit/internal/sampledata"
)

// The first line of a shipped CDXJ index: SURT, timestamp and JSON block.
func ExampleReadFile() {
	b, err := sampledata.ReadFile("real/ipwb_sample-1.cdxj")
	if err != nil {
		panic(err)
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if len(line) > 0 && line[0] != '!' {
			fmt.Println(string(bytes.Fields(line)[0]), string(bytes.Fields(line)[1]))
			break
		}
	}
	// Output:
	// com,yahoo,search)/mrss/ 20130411205500
}
