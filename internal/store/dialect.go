package store

import "context"

// The SQL that differs between the engines beyond placeholders, as
// fragments for the queries that need them, by engine. Each is written
// into the query's text, after a table or in a select list, and takes only
// constants of the caller's code (never input).

// NotIndexed is SQLite's NOT INDEXED, written after a table's name (or
// alias) to make SQLite look rows up by rowid rather than through an index
// that its planner would prefer wrongly; PostgreSQL has no such hint and
// plans well without it: "".
func (e Engine) NotIndexed() string {
	if e == SQLite {
		return "NOT INDEXED"
	}
	return ""
}

// JSONText is an expression for the member key of the JSON object in
// column when it is a string, and NULL otherwise (absent, a number, an
// object…). It is NULL too for an object whose text holds the escape
// \u0000 anywhere: PostgreSQL's JSON types cannot read one (SQLSTATE
// 22P05) and would fail the whole statement, so neither engine reads such
// an object (CASE tests it first: PostgreSQL does not order an AND).
func (e Engine) JSONText(column, key string) string {
	if e == SQLite {
		return "CASE WHEN instr(" + column + ", '\\u0000') > 0 THEN NULL WHEN json_type(" + column + ", '$." + key + "') = 'text' THEN json_extract(" + column + ", '$." + key + "') END"
	}
	return "CASE WHEN strpos(" + column + ", '\\u0000') > 0 THEN NULL WHEN jsonb_typeof(CAST(" + column + " AS jsonb) -> '" + key + "') = 'string' THEN CAST(" + column + " AS jsonb) ->> '" + key + "' END"
}

// IDs is a FROM item, named alias, whose rows are the integers of the JSON
// array bound to param (such as "?" or "?4"), in column value: a list of
// ids in one parameter.
func (e Engine) IDs(param, alias string) string {
	if e == SQLite {
		return "json_each(" + param + ") " + alias
	}
	return "(SELECT CAST(value AS BIGINT) AS value FROM jsonb_array_elements_text(CAST(" + param + " AS jsonb))) " + alias
}

// GroupConcat is an aggregate joining the values of expr (integers or
// text) with commas, in the order its rows arrive.
func (e Engine) GroupConcat(expr string) string {
	if e == SQLite {
		return "group_concat(" + expr + ", ',')"
	}
	return "string_agg(CAST(" + expr + " AS TEXT), ',')"
}

// TakeTurns makes the transactions that call it (through q, a
// transaction) with the same key take turns until each commits or rolls
// back: on PostgreSQL, where several servers write at once, through a
// transaction-scoped advisory lock on the key within the schema; on
// SQLite, whose one writer already takes turns, it does nothing. It is for
// a transaction that reads what it is about to rewrite and holds no row
// lock that would order it (Materialize).
func (e Engine) TakeTurns(ctx context.Context, q Querier, key string) error {
	if e == SQLite {
		return nil
	}
	_, err := q.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended(current_schema() || ' ' || ?, 0))`, key)
	return err
}

// inIDs returns the condition that col is one of ids, and appends its
// arguments to args: an IN list on SQLite; on PostgreSQL one array
// parameter (= ANY), so that the statement's text, and with it the plan
// the server keeps for it, is the same for any number of ids.
func (e Engine) inIDs(col string, ids []int64, args *[]any) string {
	if e == Postgres {
		*args = append(*args, ids)
		return col + " = ANY(?)"
	}
	*args = withIDs(ids, *args...)
	return col + " IN (" + placeholders(len(ids)) + ")"
}
