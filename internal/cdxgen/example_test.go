package cdxgen_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/mementokit/mementokit/internal/cdxgen"
)

func Example() {
	var b bytes.Buffer
	st, err := cdxgen.New(cdxgen.Config{Lines: 1000, Seed: 1}).Write(&b)
	if err != nil {
		panic(err)
	}
	first, _, _ := strings.Cut(b.String(), "\n")
	key, _, _ := strings.Cut(first, " ")
	fmt.Println(st.Lines, strings.Contains(key, ")/"))
	// Output: 1000 true
}
