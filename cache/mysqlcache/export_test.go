package mysqlcache

import "context"

// The statements, for the EXPLAIN test.
var (
	SQLGet         = sqlGet
	SQLStale       = sqlStale
	SQLClaimSelect = sqlClaimSelect
)

// OpenStoppingLANL is Open with the LANL migration ended after step, as a
// crash would end it.
func OpenStoppingLANL(ctx context.Context, dsn, step string) (*Cache, error) {
	return Open(ctx, dsn, &Options{lanlStopAfter: step})
}

// ErrLANLStopped is the error of a migration ended by OpenStoppingLANL.
var ErrLANLStopped = errLANLStopped

// OpenStoppingBatches is Open with batched LANL copies of batchRows rows
// ended after n batches, as a crash would end them.
func OpenStoppingBatches(ctx context.Context, dsn string, batchRows, n int) (*Cache, error) {
	return Open(ctx, dsn, &Options{MigrateBatchRows: batchRows, lanlStopBatches: n})
}
