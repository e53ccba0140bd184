package main

import (
	"context"
	"io"
	"strings"

	"github.com/mementokit/mementokit/cache/mysqlcache"
	"github.com/mementokit/mementokit/internal/cli"
)

// cliFormat is the -format of the command-line mode; migrateDryRun is
// -migrate-dry-run.
var (
	cliFormat     = "link"
	migrateDryRun bool
)

// printMigrationPlan writes the steps mysqlcache.Open would run on the
// MySQL database spec names, one a line ("up to date" when none).
func printMigrationPlan(ctx context.Context, spec string, stdout io.Writer) error {
	dsn := strings.TrimPrefix(spec, "mysql:")
	if !strings.Contains(dsn, "/") || spec == "memory" || spec == "none" || strings.HasPrefix(spec, "bolt") {
		return cli.Usagef("-migrate-dry-run: -cache must be a MySQL DSN")
	}
	plan, err := mysqlcache.MigrationPlan(ctx, dsn)
	if err != nil {
		return err
	}
	if len(plan) == 0 {
		plan = []string{"up to date"}
	}
	_, err = io.WriteString(stdout, strings.Join(plan, "\n")+"\n")
	return err
}
