package mysqltest

import (
	"fmt"
	"strings"
)

// Statement is one statement of a SQL script and the line it starts on
// (1-based).
type Statement struct {
	Line int
	SQL  string
}

// Script splits a SQL script written for the mysql command-line client
// into its statements, as that client does: a statement ends with the
// current delimiter (";" at first) at the end of a line, trailing blanks
// allowed; a line "delimiter X" (any case, as in LANL's
// conf/agg_tables.sql: "delimiter |" ... "delimiter ;") sets the
// delimiter to X and is not sent; lines starting with "--" or "#" are
// comments and are dropped. The delimiter is not part of Statement.SQL.
// Text after the last delimiter is an error naming its line, as is a
// "delimiter" line without a delimiter.
func Script(text string) ([]Statement, error) {
	var out []Statement
	delim := ";"
	var cur []string
	start := 0
	for i, line := range strings.Split(text, "\n") {
		n := i + 1
		t := strings.TrimSpace(line)
		if len(cur) == 0 && (t == "" || strings.HasPrefix(t, "--") || strings.HasPrefix(t, "#")) {
			continue
		}
		if f := strings.Fields(t); len(cur) == 0 && len(f) > 0 && strings.EqualFold(f[0], "delimiter") {
			if len(f) != 2 {
				return nil, fmt.Errorf("line %d: want \"delimiter X\", got %q", n, t)
			}
			delim = f[1]
			continue
		}
		if strings.HasPrefix(t, "--") || strings.HasPrefix(t, "#") {
			continue
		}
		if len(cur) == 0 {
			start = n
		}
		if body, ok := strings.CutSuffix(strings.TrimRight(line, " \t\r"), delim); ok {
			cur = append(cur, body)
			if s := strings.TrimSpace(strings.Join(cur, "\n")); s != "" {
				out = append(out, Statement{Line: start, SQL: s})
			}
			cur = cur[:0]
			continue
		}
		cur = append(cur, line)
	}
	if s := strings.TrimSpace(strings.Join(cur, "\n")); s != "" {
		return nil, fmt.Errorf("line %d: statement not ended by the delimiter %q", start, delim)
	}
	return out, nil
}
