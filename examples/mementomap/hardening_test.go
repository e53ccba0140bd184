package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCompactPathDepthOne compacts with -pdepth 1 a map whose keys have
// two path segments, which once panicked.
func TestCompactPathDepthOne(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.ukvs")
	if err := os.WriteFile(in, []byte("com,example)/a/b 1\ncom,example)/a/c 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"-pdepth", "1"}, {"-pdepth", "1", "-hdepth", "1"}, {"-pdepth", "1", "-pcf", "0", "-hcf", "0"}} {
		out, _, err := runCmd(t, "", append(append([]string{"compact", "-q"}, args...), in, "-")...)
		if err != nil {
			t.Fatalf("compact %v: %v", args, err)
		}
		if out != "com,example)/a/b 1\ncom,example)/a/c 2\n" {
			t.Errorf("compact %v = %q", args, out)
		}
	}
}
