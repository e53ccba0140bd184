package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFiles writes name → content into a temporary folder
// (names may hold a folder, created as needed) and returns the folder and
// the paths.
func writeFiles(t *testing.T, files map[string]string) (string, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	paths := map[string]string{}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		paths[name] = p
	}
	return dir, paths
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
		{
			name:    "chart of an empty summary",
			files:   map[string]string{"empty.sum": ""},
			args:    []string{"chart", "-kind", "domains-per-year", "-o", "OUT/c.svg", "empty.sum"},
			wantErr: "nothing to chart",
		},
		{
			name:    "bytes chart of an empty summary",
			files:   map[string]string{"empty.sum": ""},
			args:    []string{"chart", "-kind", "bytes-per-type", "-o", "OUT/c.png", "empty.sum"},
			wantErr: "nothing to chart",
		},
		{
			name:    "daily chart of an empty index",
			files:   map[string]string{"empty.cdxj": ""},
			args:    []string{"chart", "-kind", "daily-captures", "-o", "OUT/c.svg", "empty.cdxj"},
			wantErr: "nothing to chart",
		},
		{
			name:    "chart into a folder that is a file",
			files:   map[string]string{"one.sum": `x {"2020": {"n_total": 1, "s_html": 5}}` + "\n", "afile": ""},
			args:    []string{"chart", "-kind", "bytes-per-type", "-o", "OUT/afile/c.svg", "one.sum"},
			wantErr: "afile/c.svg",
		},
		{
			name:    "chart onto a folder",
			files:   map[string]string{"one.sum": `x {"2020": {"n_total": 1, "s_html": 5}}` + "\n", "adir.svg/keep": ""},
			args:    []string{"chart", "-kind", "bytes-per-type", "-o", "OUT/adir.svg", "one.sum"},
			wantErr: "adir.svg",
		},
		{
			name:    "chart of a single point",
			files:   map[string]string{"one.sum": `x {"2020": {"n_total": 1, "s_html": 5}}` + "\n"},
			args:    []string{"chart", "-kind", "domains-per-year", "-o", "OUT/c.svg", "one.sum"},
			wantOut: "",
		},
		{
			name:    "csv of files without a final newline",
			files:   map[string]string{"a.sum": `a {"2020": {"n_total": 1}}`, "b.sum": `b {"2020": {"n_total": 2}}` + "\n"},
			args:    []string{"csv", "a.sum", "b.sum"},
			wantOut: "a.sum,a,2020,0,0,0,0,0,0,0,0,0,0,0,0,1,0,0,0,0,0,0,0,0,0,0,0,0,0\n" + "OUT/b.sum,b,2020,0,0,0,0,0,0,0,0,0,0,0,0,2,",
		},
		{
			name:    "csv error names the second file and its line",
			files:   map[string]string{"a.sum": `a {"2020": {"n_total": 1}}` + "\n", "b.sum": "\nbad\n"},
			args:    []string{"csv", "a.sum", "b.sum"},
			wantErr: `b.sum:2: no " {" after the key`,
		},
		{
			name:    "csv quotes keys with commas and quotes",
			files:   map[string]string{"q.sum": `a,"b" {"2020": {"n_total": 1}}` + "\n"},
			args:    []string{"csv", "q.sum"},
			wantOut: "\n\"a,\"\"b\"\"\",2020,",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, paths := writeFiles(t, tc.files)
			args := make([]string, len(tc.args))
			for i, a := range tc.args {
				if p, ok := paths[a]; ok {
					a = p
				}
				args[i] = strings.Replace(a, "OUT/", dir+"/", 1)
			}
			defer func() {
				// No temporary file may be left behind, and a failed chart
				// leaves no output.
				err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
					if err != nil {
						return err
					}
					if strings.Contains(filepath.Base(p), ".tmp") {
						t.Errorf("leftover temporary file %s", p)
					}
					if tc.wantErr != "" && (strings.HasSuffix(p, "/c.svg") || strings.HasSuffix(p, "/c.png")) {
						t.Errorf("failed chart left %s", p)
					}
					return nil
				})
				if err != nil {
					t.Error(err)
				}
			}()
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
			for i, a := range args {
				if a == "-o" {
					if st, err := os.Stat(args[i+1]); err != nil || st.Size() == 0 {
						t.Errorf("chart %s not written: %v", args[i+1], err)
					}
				}
			}
			if want := strings.ReplaceAll(tc.wantOut, "OUT/", dir+"/"); !strings.Contains(out, want) {
				t.Errorf("output %q lacks %q", out, want)
			}
		})
	}
}
