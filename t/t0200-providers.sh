#!/usr/bin/env bash
# ctxd-admin provider test against the vendor stand-in (t/standin/vendors.js): each vendor's
# request shape and auth headers (the stand-in checks them), every failure class (401, 404
# model, 429 then success, timeout, malformed answer, DNS, connect, TLS), and no secret in
# any output.
. "$top_srcdir/t/lib/harness.sh"

require_cmd node curl
ctxd_setup

# The stand-in checks bedrock's credential scope against this region.
STANDIN_REGION=us-east-1
export STANDIN_REGION
standin_start

r=$(openssl rand -hex 6)
KEY_GOOD=sk-good-$r
KEY_401=sk-401-$r
KEY_429=sk-429once-$r
KEY_SLOW=sk-slow-$r
KEY_BAD=sk-bad-$r
AWS_SECRET=wJalrXUtnFEMI/K7MDENG/bPxRfiCY$r
AWS_TOKEN=IQoJb3JpZ2luX2VjEFRvaWxlZ$r
BEDROCK_KEY=ABSKQmVkcm9ja0FQSUtleS$r
SECRETS=("$KEY_GOOD" "$KEY_401" "$KEY_429" "$KEY_SLOW" "$KEY_BAD" "$AWS_SECRET" "$AWS_TOKEN"
    "$BEDROCK_KEY" "$r")
: >"$T/outputs"

AI_SETTINGS="ai.llm.provider ai.llm.api_key ai.llm.model ai.llm.region ai.llm.base_url
ai.embed.provider ai.embed.api_key ai.embed.model ai.embed.base_url ai.embed.region"

# ai NAME=VALUE...: unset every ai.* setting, then set the given ones (secrets via stdin).
ai() {
	local s kv
	for s in $AI_SETTINGS; do
		ctxd_admin settings unset "$s" >/dev/null 2>&1
	done
	for kv in "$@"; do
		printf '%s\n' "${kv#*=}" | ctxd_admin settings set "${kv%%=*}" - ||
		    bail_out "cannot set ${kv%%=*}"
	done
}

# ptest ARGS...: run ctxd-admin provider test; $out (stdout + stderr), $rc, $ms (elapsed).
ptest() {
	local t0 t1
	t0=$(date +%s%N)
	out=$(ctxd_admin provider test "$@" 2>&1)
	rc=$?
	t1=$(date +%s%N)
	ms=$(((t1 - t0) / 1000000))
	printf '%s\n' "$out" >>"$T/outputs"
	diag "$out"
}

# requests PATH: how many requests the stand-in has seen on PATH.
requests() {
	curl -s "$SBASE/_log" | node -e '
		let s = ""; process.stdin.on("data", (c) => s += c).on("end", () =>
		    console.log(JSON.parse(s).filter((e) => e.path === process.argv[1]).length));
	' "$1"
}

# last_body PATH: the body of the stand-in's last request on PATH.
last_body() {
	curl -s "$SBASE/_log" | node -e '
		let s = ""; process.stdin.on("data", (c) => s += c).on("end", () =>
		    console.log(JSON.parse(s).filter((e) => e.path === process.argv[1]).pop().body));
	' "$1"
}

OK_LLM='llm: ok in [0-9]+ ms: answered "ok"'
OK_EMBED='embed: ok in [0-9]+ ms: 2 vectors of 64 dimensions'

# ------------------------------------------------------------------ nothing configured
ai
ptest
is "$rc" 0 "no provider: exit 0"
like "$out" 'llm: none \(ai.llm.provider is unset\)' "no provider: llm none"
like "$out" 'embed: none' "no provider: embed none"

# ------------------------------------------------------------------ openai
ai ai.llm.provider=openai ai.llm.api_key="$KEY_GOOD" ai.llm.base_url="$SBASE"
ptest
is "$rc" 0 "openai: exit 0"
like "$out" "llm: openai, model gpt-4o-mini, endpoint $SBASE/v1/chat/completions" \
    "openai: the endpoint is shown"
like "$out" "$OK_LLM" "openai: chat answered"
like "$out" "$OK_EMBED" "openai: embeddings (key and base URL inherited)"
is "$(last_body /v1/chat/completions)" \
    '{"model":"gpt-4o-mini","messages":[{"role":"system","content":"You are a connectivity check. Answer with one word."},{"role":"user","content":"Reply with the word ok."}]}' \
    "openai: only the needed content is sent"
is "$(last_body /v1/embeddings)" \
    '{"model":"text-embedding-3-small","input":["How do I set a timeout on a request?","Set the request timeout in milliseconds."]}' \
    "openai: the embedding request"

ai ai.llm.provider=openai ai.llm.api_key="$KEY_401" ai.llm.base_url="$SBASE"
ptest
is "$rc" 1 "openai 401: exit 1"
like "$out" 'llm: FAILED \(auth\): authentication failed: openai rejected the credentials \(HTTP 401\): Incorrect API key provided: \[redacted\]' \
    "openai 401: auth failure, the echoed key redacted"
like "$out" 'embed: FAILED \(auth\)' "openai 401: embeddings fail too"

ai ai.llm.provider=openai ai.llm.api_key="$KEY_GOOD" ai.llm.base_url="$SBASE" \
    ai.llm.model=missing
ptest --llm
is "$rc" 1 "model missing: exit 1"
like "$out" "llm: FAILED \\(model\\): model 'missing' not found \\(or wrong endpoint\\) \\(HTTP 404\\): The model \`missing\` does not exist" \
    "model missing: 404 explained"
unlike "$out" 'embed:' "--llm checks only the LLM"

n0=$(requests /v1/chat/completions)
ai ai.llm.provider=openai ai.llm.api_key="$KEY_429" ai.llm.base_url="$SBASE"
ptest --llm
is "$rc" 0 "429 then success: exit 0"
like "$out" "$OK_LLM" "429 then success: answered"
is "$(($(requests /v1/chat/completions) - n0))" 2 "429 then success: retried once"
ok "$([ "$ms" -ge 1000 ] && echo 0 || echo 1)" "429 then success: Retry-After honoured (${ms} ms)"

ai ai.llm.provider=openai ai.llm.api_key="$KEY_SLOW" ai.llm.base_url="$SBASE"
ptest --llm --timeout 1
is "$rc" 1 "timeout: exit 1"
like "$out" "llm: FAILED \\(timeout\\): timeout: no answer from 127.0.0.1:$SPORT within 1000 ms" \
    "timeout: explained"
ok "$([ "$ms" -lt 2800 ] && echo 0 || echo 1)" "timeout: the 1 s deadline holds (${ms} ms)"

ai ai.llm.provider=openai ai.llm.api_key="$KEY_BAD" ai.llm.base_url="$SBASE"
ptest
is "$rc" 1 "malformed: exit 1"
like "$out" 'llm: FAILED \(malformed\): malformed response' "malformed: chat"
like "$out" 'embed: FAILED \(malformed\): malformed response' "malformed: embeddings"

# ------------------------------------------------------------------ anthropic
ai ai.llm.provider=anthropic ai.llm.api_key="$KEY_GOOD" ai.llm.base_url="$SBASE"
ptest
is "$rc" 0 "anthropic: exit 0"
like "$out" "llm: anthropic, model claude-3-5-haiku-latest, endpoint $SBASE/v1/messages" \
    "anthropic: endpoint"
like "$out" "$OK_LLM" "anthropic: messages answered"
like "$out" 'embed: none \(anthropic has no embeddings' "anthropic: no embeddings"
is "$(last_body /v1/messages)" \
    '{"model":"claude-3-5-haiku-latest","max_tokens":1024,"system":"You are a connectivity check. Answer with one word.","messages":[{"role":"user","content":"Reply with the word ok."}]}' \
    "anthropic: the request"

ai ai.llm.provider=anthropic ai.llm.api_key="$KEY_401" ai.llm.base_url="$SBASE" \
    ai.embed.provider=openai ai.embed.api_key="$KEY_GOOD" ai.embed.base_url="$SBASE"
ptest
is "$rc" 1 "anthropic 401: exit 1"
like "$out" 'llm: FAILED \(auth\): authentication failed: anthropic rejected the credentials \(HTTP 401\): invalid x-api-key \[redacted\]' \
    "anthropic 401: explained, key redacted"
like "$out" "$OK_EMBED" "anthropic + openai embeddings with a key of their own"

# ------------------------------------------------------------------ gemini
ai ai.llm.provider=gemini ai.llm.api_key="$KEY_GOOD" ai.llm.base_url="$SBASE"
ptest
is "$rc" 0 "gemini: exit 0"
like "$out" "$OK_LLM" "gemini: generateContent answered"
like "$out" "embed: gemini, model gemini-embedding-001, endpoint $SBASE/v1beta/models/gemini-embedding-001:batchEmbedContents" \
    "gemini: embedding endpoint"
like "$out" "$OK_EMBED" "gemini: batchEmbedContents answered"

ai ai.llm.provider=gemini ai.llm.api_key="$KEY_401" ai.llm.base_url="$SBASE"
ptest --llm
like "$out" 'llm: FAILED \(auth\): authentication failed: gemini rejected the credentials \(HTTP 400\): API key not valid' \
    "gemini bad key (HTTP 400 API_KEY_INVALID) is an auth failure"

ai ai.llm.provider=gemini ai.llm.api_key="$KEY_GOOD" ai.llm.base_url="$SBASE" \
    ai.llm.model=missing
ptest --llm
like "$out" "llm: FAILED \\(model\\): model 'missing' not found .*models/missing is not found" \
    "gemini: model not found"

# ------------------------------------------------------------------ bedrock
ai ai.llm.provider=bedrock ai.llm.region=us-east-1 ai.llm.base_url="$SBASE"
export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE AWS_SECRET_ACCESS_KEY="$AWS_SECRET"
export AWS_SESSION_TOKEN="$AWS_TOKEN" AWS_EC2_METADATA_DISABLED=true
unset AWS_BEARER_TOKEN_BEDROCK AWS_PROFILE
ptest
is "$rc" 0 "bedrock SigV4: exit 0"
like "$out" "llm: bedrock, model anthropic.claude-3-haiku-20240307-v1:0, region us-east-1, endpoint $SBASE/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse" \
    "bedrock: Converse endpoint, model id encoded"
like "$out" 'llm: credentials: environment' "bedrock: credentials from the environment"
like "$out" "$OK_LLM" "bedrock: Converse answered (signed request accepted)"
like "$out" "$OK_EMBED" "bedrock: titan InvokeModel, one text a request"
is "$(last_body /model/amazon.titan-embed-text-v2%3A0/invoke)" \
    '{"inputText":"Set the request timeout in milliseconds."}' "bedrock: titan body"

ai ai.llm.provider=bedrock ai.llm.region=us-east-1 ai.llm.base_url="$SBASE" \
    ai.embed.model=cohere.embed-english-v3
ptest --embed
like "$out" "$OK_EMBED" "bedrock: cohere InvokeModel"
is "$(last_body /model/cohere.embed-english-v3/invoke)" \
    '{"texts":["How do I set a timeout on a request?","Set the request timeout in milliseconds."],"input_type":"search_document"}' \
    "bedrock: cohere body"

ai ai.llm.provider=bedrock ai.llm.region=us-east-1 ai.llm.base_url="$SBASE"
AWS_ACCESS_KEY_ID=AKIA401EXAMPLE ptest --llm
like "$out" 'llm: FAILED \(auth\): authentication failed: bedrock rejected the credentials \(HTTP 403\)' \
    "bedrock: rejected credentials"

ai ai.llm.provider=bedrock ai.llm.region=us-east-1 ai.llm.base_url="$SBASE" \
    ai.llm.api_key="$BEDROCK_KEY"
ptest --llm
like "$out" 'llm: credentials: Bedrock API key' "bedrock API key: used as a bearer token"
like "$out" "$OK_LLM" "bedrock API key: answered"

ai ai.llm.provider=bedrock ai.llm.base_url="$SBASE"
AWS_REGION="" AWS_DEFAULT_REGION="" ptest --llm
like "$out" 'llm: FAILED \(config\): no region is set for bedrock' "bedrock without a region"

# The embeddings in a region of their own: signed for it (the stand-in accepts only us-east-1).
ai ai.llm.provider=bedrock ai.llm.region=us-east-1 ai.embed.region=eu-west-1 ai.llm.base_url="$SBASE"
ptest
like "$out" 'embed: bedrock, model amazon.titan-embed-text-v2:0, region eu-west-1' \
    "bedrock: ai.embed.region is the embeddings' region"
like "$out" 'llm: bedrock, model [^,]*, region us-east-1' "... ai.llm.region the LLM's"
like "$out" "$OK_LLM" "... the LLM answers in its region"
like "$out" 'embed: FAILED \(auth\).*credential scope region eu-west-1 does not match' \
    "... the embeddings are signed for eu-west-1 (which the stand-in refuses)"
unset AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN

# ------------------------------------------------------------------ custom and transport errors
ai ai.llm.provider=custom ai.llm.model=local-llm ai.llm.api_key="$KEY_GOOD" \
    ai.llm.base_url="$SBASE/v1" ai.embed.model=local-embed
ptest
is "$rc" 0 "custom: exit 0"
like "$out" "llm: custom, model local-llm, endpoint $SBASE/v1/chat/completions" \
    "custom: /v1 base gets /chat/completions"
like "$out" "$OK_LLM" "custom: chat answered"
like "$out" "embed: custom, model local-embed, endpoint $SBASE/v1/embeddings" \
    "custom: /v1 base gets /embeddings"
like "$out" "$OK_EMBED" "custom: embeddings answered"

ai ai.llm.provider=custom ai.llm.model=local-llm ai.llm.api_key="$KEY_GOOD" \
    ai.llm.base_url="$SBASE"
ptest --embed
is "$rc" 1 "custom without an embedding model: exit 1"
like "$out" 'embed: FAILED \(config\): no model is set for the custom provider' \
    "custom: embeddings need a model"

ai ai.llm.provider=custom ai.llm.model=m ai.llm.base_url=http://nonexistent.invalid
ptest --llm --timeout 5
like "$out" 'llm: FAILED \(dns\): DNS: cannot resolve nonexistent.invalid' "DNS failure"

ai ai.llm.provider=custom ai.llm.model=m ai.llm.base_url=http://127.0.0.1:1
ptest --llm
like "$out" 'llm: FAILED \(connect\): cannot connect to 127.0.0.1:1' "connect failure"

ai ai.llm.provider=custom ai.llm.model=m ai.llm.base_url="https://127.0.0.1:$SPORT"
ptest --llm
like "$out" "llm: FAILED \\(tls\\): TLS failure with 127.0.0.1:$SPORT" "TLS failure"

ptest --bogus
is "$rc" 2 "a bad option: exit 2"

# ------------------------------------------------------------------ no secret anywhere
leaked=0
for s in "${SECRETS[@]}"; do
	if grep -qF -- "$s" "$T/outputs"; then
		leaked=1
		diag "secret ${s:0:6}... appears in an output"
	fi
done
is "$leaked" 0 "no key, secret or token in any output"

done_testing
