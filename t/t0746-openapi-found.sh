#!/usr/bin/env bash
# Operations found by what they do, asked in a developer's words: the words naming the
# library ("argo cd", rare in its spec) and the words saying "an API operation" ("endpoint")
# are left out of the lexical question, a name word the library says everywhere stays
# ("twilio"); in an OpenAPI library a resource word in most operations still counts (the
# floored IDF); a versioned tag's resource name finds its operations ("messaging service");
# an answer holds the five best operations.
. "$top_srcdir/t/lib/harness.sh"
. "$top_srcdir/t/lib/fixtures.sh"
require_cmd jq nginx curl

ctxd_setup
fixture_site openapi "$FIXTURES/openapi"
fixtures_start
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)

# add URL: POST /api/libraries for the spec at URL (a path under the fixtures' site);
# prints the library id.
add() {
	http POST "$BASE/api/libraries" -H "Authorization: Bearer $ADMIN" \
	    -H 'Content-Type: application/json' \
	    --data "{\"type\":\"openapi\",\"url\":\"$FIX_OPENAPI/$1\"}" >/dev/null
	http_body | jq -r .libraryId
}
# terms LIB QUESTION: the question's lexical terms as explain shows them.
terms() {
	ctxd_admin explain --limit 1 "$1" "$2" | sed -n 's/^question terms: //p'
}
# rank LIB QUESTION ANCHOR: the place of the operation in the answer (0: not in it).
rank() {
	ctxd_admin explain --tsv --limit 20 "$1" "$2" |
	    awk -F'\t' -v a="#$3" '$5 > 0 && substr($7, length($7) - length(a) + 1) == a { print $5; f = 1; exit }
		END { if (!f) print 0 }'
}

ARGO=$(add argo-cd/assets/swagger.json)
MSG=$(add twilio/spec/yaml/twilio_messaging_v1.yaml)
for id in "$ARGO" "$MSG"; do
	is "$(wait_job "$id")" finalized "$id indexed"
done

is "$(terms "$ARGO" "argo cd list applications endpoint")" '"list" "applications" "listapplications"' \
    "the library's rare name words (argo, cd, from its id) and 'endpoint' are left out"
is "$(rank "$ARGO" "argo cd list applications endpoint" ApplicationService_List)" 1 \
    "... and GET /api/v1/applications answers first"
is "$(terms "$ARGO" "argo cd")" '"argo" "cd" "argocd"' \
    "a question of name words only is asked whole"
is "$(terms "$MSG" "create a twilio messaging service")" \
    '"create" "twilio" "messaging" "service" "twiliomessaging" "messagingservice"' \
    "name words the library says everywhere (twilio, messaging) stay"
is "$(rank "$ARGO" "list applications" ApplicationService_List)" 1 \
    "'applications', in most of Argo CD's operations, still counts: List answers first"
r=$(rank "$MSG" "create a messaging service" CreateService)
ok "$([ "$r" -ge 1 ] && [ "$r" -le 3 ]; echo $?)" \
    "POST /v1/Services (tag MessagingV1Service) is among the first three for 'create a messaging service' ($r)"

# An API library's answer holds its five best operations: one too big for the room left
# is cut to it rather than left out for a smaller one further down (POST /repositories,
# 646 tokens, came after four operations of 1,935 tokens in all).
places=$(ctxd_admin explain --tsv --limit 5 "$ARGO" "connect a git repository" |
    awk -F'\t' 'NR > 1 && $5 > 0' | wc -l)
is "$places" 5 "the five best operations for 'connect a git repository' are all in the answer"
r=$(rank "$ARGO" "connect a git repository" RepositoryService_CreateRepository)
ok "$([ "$r" -ge 1 ] && [ "$r" -le 5 ]; echo $?)" \
    "POST /api/v1/repositories is among the answer's first five ($r)"

done_testing
