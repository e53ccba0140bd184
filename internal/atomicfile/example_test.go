package atomicfile_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mementokit/mementokit/internal/atomicfile"
)

// A failed write leaves the earlier file as it was; a finished one replaces
// it whole.
func ExampleWrite() {
	dir, err := os.MkdirTemp("", "atomicfile-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "map.txt")

	_ = atomicfile.Write(path, func(w io.Writer) error {
		_, err := io.WriteString(w, "com,example)/ 3\n")
		return err
	})
	err = atomicfile.Write(path, func(w io.Writer) error {
		_, _ = io.WriteString(w, "com,example)/ 4\n")
		return errors.New("input ended early")
	})
	fmt.Println("second write failed:", err != nil)
	b, _ := os.ReadFile(path)
	fmt.Print(string(b))
	left, _ := filepath.Glob(filepath.Join(dir, "*"))
	fmt.Println("files in the folder:", len(left))
	// Output:
	// second write failed: true
	// com,example)/ 3
	// files in the folder: 1
}
