-- Version 9: the audit trail. Each change of the policies for public
-- documentation (lib/policy.h) leaves a row: when, who (an admin's session or key, or
-- ctxd-admin), what (action "policies") and the changes as JSON
-- {"setting": {"from": old, "to": new}, ...}. GET /api/policies/audit reads it.
CREATE TABLE audit_log (
	id		INTEGER PRIMARY KEY,
	at		TEXT NOT NULL,
	actor		TEXT NOT NULL,
	action		TEXT NOT NULL,
	detail		TEXT NOT NULL
);
