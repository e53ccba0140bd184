package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFiles writes name → content into a temporary folder and returns the paths.
func writeFiles(t *testing.T, files map[string]string) map[string]string {
	t.Helper()
	dir := t.TempDir()
	paths := map[string]string{}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		paths[name] = p
	}
	return paths
}

// Regression cases for inputs that broke the command: each must fail with
// an error naming the file (and the line where there is one), or succeed
// with the given output.
func TestAdversarialInputs(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		args    []string // file names are replaced by their paths
		wantErr string   // substring of the error, after the folder
		wantOut string   // substring of standard output when wantErr is ""
	}{
		{
			name:    "empty gz file",
			files:   map[string]string{"empty.cdxj.gz": ""},
			args:    []string{"empty.cdxj.gz"},
			wantErr: "empty.cdxj.gz: empty file, not gzip data",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			paths := writeFiles(t, tc.files)
			args := make([]string, len(tc.args))
			for i, a := range tc.args {
				if p, ok := paths[a]; ok {
					a = p
				}
				args[i] = a
			}
			out, _, err := runCmd(t, args...)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out, tc.wantOut) {
				t.Errorf("output %q lacks %q", out, tc.wantOut)
			}
		})
	}
}
