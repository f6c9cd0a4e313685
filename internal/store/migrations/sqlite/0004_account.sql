-- Accounts, checkouts, invoices and usage counters. The plan itself stays in
-- workspaces.plan (a plan slug); prices, quotas and rate limits live in code.
-- Every row carries the workspace id and every query filters on it.

-- accounts holds the editable parts of the account view, each a JSON object
-- merged by PATCH /v1/account. payment_method is '' when none is on file.
CREATE TABLE accounts (
	org_id          TEXT PRIMARY KEY REFERENCES workspaces(org_id),
	profile         TEXT NOT NULL DEFAULT '{}',
	notifications   TEXT NOT NULL DEFAULT '{}',
	billing_contact TEXT NOT NULL DEFAULT '{}',
	payment_method  TEXT NOT NULL DEFAULT '',
	updated_at      TEXT NOT NULL
);

-- checkouts are orders for a paid plan. A checkout moves from pending to
-- paid once, when a correctly signed confirmation arrives.
CREATE TABLE checkouts (
	checkout_id  TEXT PRIMARY KEY,
	org_id       TEXT NOT NULL REFERENCES workspaces(org_id),
	plan         TEXT NOT NULL,
	amount_cents INTEGER NOT NULL CHECK (amount_cents >= 0),
	currency     TEXT NOT NULL,
	provider     TEXT NOT NULL,
	order_id     TEXT NOT NULL,
	key_id       TEXT NOT NULL DEFAULT '',
	status       TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'paid')),
	payment_id   TEXT NOT NULL DEFAULT '',
	created_at   TEXT NOT NULL,
	paid_at      TEXT NOT NULL DEFAULT ''
);
CREATE INDEX checkouts_org ON checkouts (org_id, created_at);

-- invoices: one per paid checkout, enforced by UNIQUE (checkout_id), so a
-- replayed confirmation can never bill twice.
CREATE TABLE invoices (
	invoice_id   TEXT PRIMARY KEY,
	org_id       TEXT NOT NULL REFERENCES workspaces(org_id),
	checkout_id  TEXT NOT NULL UNIQUE REFERENCES checkouts(checkout_id),
	plan         TEXT NOT NULL,
	amount_cents INTEGER NOT NULL CHECK (amount_cents >= 0),
	currency     TEXT NOT NULL,
	status       TEXT NOT NULL,
	payment_id   TEXT NOT NULL,
	period_start TEXT NOT NULL,
	period_end   TEXT NOT NULL,
	created_at   TEXT NOT NULL
);
CREATE INDEX invoices_org ON invoices (org_id, created_at);

-- usage_counters sums the metered events of a workspace per calendar month
-- (period 'YYYY-MM', UTC). Rows are added by batched flushes, not per call.
CREATE TABLE usage_counters (
	org_id  TEXT NOT NULL,
	period  TEXT NOT NULL,
	counter TEXT NOT NULL,
	value   INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (org_id, period, counter)
) WITHOUT ROWID;
