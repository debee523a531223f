// parts/states.js: the state words the UI shows and what each means, one table per kind of
// state. The words are the server's (lib/store/jobs.h: JOBS_STATE_LIST, ...; a library's
// are the hosted API's, GET /api/v2/libs/search), the same ones the REST answers, ctxd
// library and the man pages use (ctxd(7), STATES); a word is never translated, its meaning
// is shown beside it or as its title. No DOM: Node's test runner checks these tables
// against lib/store/jobs.h, the schema and ctxd(7) (t/ui-unit/states.test.mjs).

// A library's state (GET /api/v2/libs/search and GET /api/libraries: state).
export const LIBRARY_STATES = {
	initial: "not indexed yet: its first run has not finished; agents get no answer from it",
	processing: "a run is indexing it; agents get the previous index, if it has one",
	finalized: "indexed: agents get answers from it",
	error: "its first run failed: it has no index (the last run's error says why)",
	delete: "being deleted",
};

// How a library's last run ended (GET /api/libraries: runStatus).
export const RUN_STATUSES = {
	running: "a run is indexing it now",
	ok: "the last run indexed everything",
	failed: "the last run failed; a previous index, if any, is still served (the last error says why)",
	unfinished: "the worker stopped during the last run (a crash or the job time limit); a new run starts over",
	degraded: "the last run indexed the documents but some titles or embeddings failed; the next run asks for what is missing",
	cancelled: "the last run was cancelled; the last error says what was kept",
};

// A job's state (GET /api/jobs: state).
export const JOB_STATES = {
	queued: "waiting for the worker",
	running: "the worker is running it",
	done: "finished; its message says what it did",
	failed: "stopped with an error; its message and log say why",
	cancelled: "cancelled before its end; it never runs again",
};

// A GitOps sync's state (GET /api/gitops/status: state).
export const GITOPS_STATES = {
	queued: "waiting for the worker",
	running: "the worker is reading the manifest",
	done: "the manifest was applied",
	skipped: "this manifest commit was applied already: nothing to do",
	failed: "the manifest could not be read or applied; the errors say why",
};

// A setup wizard step's state (GET /api/setup: state).
export const SETUP_STATES = {
	pending: "not decided yet",
	done: "its settings were saved",
	skipped: "skipped: the defaults hold",
};

// A job log line's level (GET /api/jobs/ID/log: level).
export const LOG_LEVELS = {
	info: "what the job did",
	warning: "the job went on, but something needs a look",
	error: "what failed",
};

// meaning(table, word): what word means, or null for a word the table does not know.
export function meaning(table, word) {
	return Object.prototype.hasOwnProperty.call(table, word) ? table[word] : null;
}
