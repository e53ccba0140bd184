// Command fetchassets refreshes the JavaScript library package report
// embeds, from the npm registry through the npm client: it packs each
// pinned package (npm pack), checks the tarball against the integrity the
// registry publishes (npm view PACKAGE@VERSION dist.integrity), and copies
// the minified bundle and the licence files into ../assets, with a
// README.md stating where each file comes from.
//
//	go generate ./internal/report     # runs: go run ./fetchassets
//
// To move to another version, change the pins below and run it again.
package main

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// pkg is one npm package and the files taken from its tarball
// (path inside the tarball → name in assets/).
type pkg struct {
	name, version, licence string
	files                  map[string]string
	why                    string
}

// pins are the packages embedded: ECharts' full bundle (it holds the
// treemap and the data-zoom components) and the licences of what the
// bundle contains (zrender, tslib's helpers, d3's treemap layout).
var pins = []pkg{
	{"echarts", "6.1.0", "Apache-2.0", map[string]string{
		"package/dist/echarts.min.js": "echarts.min.js",
		"package/LICENSE":             "LICENSE-echarts.txt",
		"package/NOTICE":              "NOTICE-echarts.txt",
		"package/licenses/LICENSE-d3": "LICENSE-d3.txt",
	}, "the charts of the report (dist/echarts.min.js, the full bundle)"},
	{"zrender", "6.1.0", "BSD-3-Clause", map[string]string{
		"package/LICENSE": "LICENSE-zrender.txt",
	}, "ECharts' drawing library, bundled in echarts.min.js"},
	{"tslib", "2.3.0", "0BSD", map[string]string{
		"package/LICENSE.txt": "LICENSE-tslib.txt",
	}, "TypeScript helpers, bundled in echarts.min.js"},
}

func main() {
	if err := run("assets"); err != nil {
		fmt.Fprintln(os.Stderr, "fetchassets:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	tmp, err := os.MkdirTemp("", "fetchassets")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	var readme strings.Builder
	readme.WriteString(`# Embedded JavaScript (written by fetchassets; do not edit)

Package report inlines these files into every HTML report, so that a report
opens without a network. They come unmodified from the npm registry; run
` + "`go generate ./internal/report`" + ` to fetch them again (the pins are in
fetchassets/main.go).

| file | npm package | package licence | integrity (registry) | what for |
| --- | --- | --- | --- | --- |
`)
	for _, p := range pins {
		spec := p.name + "@" + p.version
		want, err := npm(tmp, "view", spec, "dist.integrity")
		if err != nil {
			return err
		}
		want = strings.TrimSpace(want)
		out, err := npm(tmp, "pack", spec, "--json", "--pack-destination", tmp)
		if err != nil {
			return err
		}
		var packed []struct{ Filename string }
		if err := json.Unmarshal([]byte(out), &packed); err != nil || len(packed) != 1 {
			return fmt.Errorf("npm pack %s: unexpected output %q", spec, out)
		}
		tgz := filepath.Join(tmp, packed[0].Filename)
		b, err := os.ReadFile(tgz)
		if err != nil {
			return err
		}
		sum := sha512.Sum512(b)
		if got := "sha512-" + base64.StdEncoding.EncodeToString(sum[:]); got != want {
			return fmt.Errorf("%s: tarball integrity %s, the registry says %s", spec, got, want)
		}
		if err := extract(b, p.files, dir); err != nil {
			return fmt.Errorf("%s: %w", spec, err)
		}
		for _, to := range sortedValues(p.files) {
			fmt.Fprintf(&readme, "| `%s` | %s | %s | `%s` | %s |\n", to, spec, p.licence, want, p.why)
		}
	}
	return os.WriteFile(filepath.Join(dir, "README.md"), []byte(readme.String()), 0o644)
}

func npm(dir string, args ...string) (string, error) {
	cmd := exec.Command("npm", args...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("npm %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out), nil
}

// extract copies the wanted files of a .tgz into dir.
func extract(tgz []byte, want map[string]string, dir string) error {
	zr, err := gzip.NewReader(strings.NewReader(string(tgz)))
	if err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	found := map[string]bool{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		to, ok := want[h.Name]
		if !ok {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, to), b, 0o644); err != nil {
			return err
		}
		found[h.Name] = true
	}
	for from := range want {
		if !found[from] {
			return fmt.Errorf("%s is not in the package", from)
		}
	}
	return nil
}

func sortedValues(m map[string]string) []string {
	return slices.Sorted(maps.Values(m))
}
