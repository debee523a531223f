# t/lib/gitops.sh: helpers of the GitOps tests (t09NN), sourced after t/lib/harness.sh.
#
# gitops_repo_init OWNER/NAME: a private manifest repository served by the test git server
#   (gitserver_start first) with branch main, and a work tree $GW to write it in; sets
#   GITOPS_URL (its clone URL).
# gitops_push [FILE]: commits the work tree (stdin, when given, becomes FILE, default
#   repos.yaml) and pushes it; prints the new commit.
# gitops_credentials: the test git server becomes the GitHub-type host, $GIT_TOKEN its token
#   (gitserver_start with GIT_USER=x-access-token).
# gitops_run: runs ctxd-worker in the foreground (the tests set CTXD_WORKER=/bin/true).
# gitops_last FIELD: a field of GET /api/gitops/status's lastSync (jq path, e.g. .state).

gitops_repo_init() {
	local bare=$T/gitsrv/private/$1.git
	mkdir -p "${bare%/*}"
	git init -q --bare -b main "$bare" || bail_out "git init --bare $bare"
	GW=$T/gitops-work
	git init -q -b main "$GW" || bail_out "git init $GW"
	git -C "$GW" remote add origin "$bare"
	GITOPS_URL=$GITBASE/private/$1.git
	export GW GITOPS_URL
}

gitops_push() {
	local file=${1:-repos.yaml}
	if [ ! -t 0 ]; then
		mkdir -p "$(dirname "$GW/$file")"
		cat >"$GW/$file"
	fi
	git -C "$GW" add -A
	git -C "$GW" -c user.email=t@example.com -c user.name=t commit -q --allow-empty \
	    -m "manifest $(date +%s%N)" || bail_out "git commit"
	git -C "$GW" push -q origin main 2>>"$T/log/gitops-push.log" || bail_out "git push"
	git -C "$GW" rev-parse HEAD
}

gitops_credentials() {
	ctxd_admin settings set git.github.host "127.0.0.1:$GITPORT" >/dev/null &&
	    printf '%s\n' "$GIT_TOKEN" | ctxd_admin settings set git.github.token - >/dev/null ||
	    bail_out "cannot store the git credential"
}

gitops_run() {
	"$top_builddir/ctxd-worker" 2>>"$T/log/worker.log"
}

gitops_last() {
	http GET "$BASE/api/gitops/status" -H "Authorization: Bearer $ADMIN" >/dev/null
	http_body | jq -r ".lastSync$1"
}
