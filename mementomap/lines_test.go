package mementomap

import (
	"testing"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/ukvs"
)

// TestOneLineLimit: the readers of maps and of indexes share one line
// limit, so that a line one tool writes another never refuses.
func TestOneLineLimit(t *testing.T) {
	if MaxLineLength != ukvs.DefaultMaxLineLength ||
		DefaultCompactOptions().withDefaults().MaxLineLength != MaxLineLength || cdxj.DefaultMaxLineSize != MaxLineLength {
		t.Errorf("line limits differ: mementomap %d, compact %d, ukvs %d, cdxj %d", MaxLineLength,
			DefaultCompactOptions().withDefaults().MaxLineLength, ukvs.DefaultMaxLineLength, cdxj.DefaultMaxLineSize)
	}
}
