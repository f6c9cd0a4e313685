package store

import "context"

// The statements of one row that the operations of Tx compose, for the
// tenancy tests of package store_test (foreign_test.go), which call them
// with another workspace's row ids.
var (
	DeletePaperRow    = deletePaper
	DeleteAnalysisRow = deleteAnalysis
	DeleteMemoryRow   = deleteMemory
)

// DeleteNodesOf deletes the nodes of org's owner (kind, id).
func DeleteNodesOf(ctx context.Context, q Querier, org, kind string, id int64) error {
	return deleteNodes(ctx, q, Owner{Org: org, Kind: kind, ID: id})
}
