-- Ids a workspace sees are numbered within the workspace (issue 40). Node
-- and document ids were the tables' row ids, shared by every workspace, so
-- a new workspace's first document was doc:6 when five others had been
-- stored elsewhere: an id told one tenant how much the others store. A
-- node or document now also has num, its number within its workspace
-- (1, 2, 3, … in the order they are stored; never reused), which is the id
-- the API, MCP, the dashboard and the command line show and take
-- (node_id, claim:<node_id>, doc:<id>, a session's claims). Row ids stay
-- the tables' keys: edges, vectors and the search index use them and never
-- show them.
--
-- Rows stored before keep the id they were shown with: their num is NULL,
-- read as their row id (COALESCE(num, id), unique within a workspace), and
-- each workspace's counter starts above the largest of its old ids, so an
-- id a client kept still names the same node or document. The counters
-- are columns of workspaces, moved by the transaction that stores the
-- rows (on PostgreSQL the row lock orders servers that store into one
-- workspace at once).
--
-- An older server refuses to open the database after this migration (it
-- does not know it); one still running fails to store nodes once their
-- row ids meet the numbers of the workspace they are stored in.
ALTER TABLE workspaces ADD COLUMN node_nums INTEGER NOT NULL DEFAULT 0;
ALTER TABLE workspaces ADD COLUMN document_nums INTEGER NOT NULL DEFAULT 0;
ALTER TABLE nodes ADD COLUMN num INTEGER;
ALTER TABLE documents ADD COLUMN num INTEGER;
CREATE UNIQUE INDEX nodes_num ON nodes (org_id, COALESCE(num, id));
CREATE UNIQUE INDEX documents_num ON documents (org_id, COALESCE(num, id));
UPDATE workspaces SET
	node_nums = COALESCE((SELECT MAX(COALESCE(num, id)) FROM nodes WHERE nodes.org_id = workspaces.org_id), 0),
	document_nums = COALESCE((SELECT MAX(COALESCE(num, id)) FROM documents WHERE documents.org_id = workspaces.org_id), 0);
