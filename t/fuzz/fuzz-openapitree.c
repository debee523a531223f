/*
 * fuzz-openapitree.c: the multi-file OpenAPI loader (lib/parse/openapi_tree.c) on a tree of
 * files from arbitrary bytes, then the pipeline's parse of the bundled document.
 *
 * The input is the spec, then files, each introduced by a byte 0x01 and its name up to a
 * newline ("\x01schemas/Pet.yaml\n<content>"); a $ref names them relative to the spec's
 * folder or to the file it is in, so $refs may form cycles, name files that are not there
 * (the get function answers as an HTTP 404 would) or files past the limits. A file whose
 * name ends in "+big" is served as its content repeated past the one-file limit (a huge
 * file, refused as the fetch's max_size refuses it). The limits are small (16 files,
 * 64 KB in all, 8 KB a file) so that every limit is reached.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "parse/openapi.h"
#include "parse/openapi_tree.h"
#include "parse/parse.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define FUZZ_TREE_FILES	64
#define FUZZ_TREE_BIG	(12 * 1024)

struct fuzz_tree {
	const char	*name[FUZZ_TREE_FILES];
	size_t		 namelen[FUZZ_TREE_FILES];
	const char	*data[FUZZ_TREE_FILES];
	size_t		 len[FUZZ_TREE_FILES];
	size_t		 n;
};

static int
fuzz_tree_get(void *arg, struct openapi_tree_file *files, size_t n)
{
	struct fuzz_tree *t = arg;
	size_t		 i, j, k, klen;
	char		*big;

	for (i = 0; i < n; i++) {
		klen = strlen(files[i].key);
		for (j = 0; j < t->n; j++)
			if (t->namelen[j] == klen && memcmp(t->name[j], files[i].key,
			    klen) == 0)
				break;
		if (j == t->n) {
			snprintf(files[i].err, sizeof(files[i].err), "HTTP 404");
			continue;
		}
		if (klen > 4 && strcmp(files[i].key + klen - 4, "+big") == 0 &&
		    t->len[j] > 0) {
			if ((big = malloc(FUZZ_TREE_BIG)) == NULL)
				return -1;
			for (k = 0; k < FUZZ_TREE_BIG; k++)
				big[k] = t->data[j][k % t->len[j]];
			files[i].priv = big;
			if (FUZZ_TREE_BIG > files[i].max)
				files[i].too_large = 1;
			else {
				files[i].data = big;
				files[i].len = FUZZ_TREE_BIG;
			}
			continue;
		}
		if (t->len[j] > files[i].max) {
			files[i].too_large = 1;
			continue;
		}
		files[i].data = t->data[j];
		files[i].len = t->len[j];
	}
	return 0;
}

static void
fuzz_tree_release(void *arg, struct openapi_tree_file *files, size_t n)
{
	size_t	 i;

	(void)arg;
	for (i = 0; i < n; i++)
		free(files[i].priv);
}

static void
fuzz_tree_warn(void *arg, const char *key, const char *why)
{
	(void)arg;
	(void)key;
	(void)why;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_tree		 t;
	struct openapi_tree_ops		 ops = { fuzz_tree_get, fuzz_tree_release,
					    fuzz_tree_warn, NULL };
	struct openapi_tree_limits	 lim = { 16, 64 * 1024, 8 * 1024 };
	struct openapi_tree_stats	 st;
	json_object			*root = NULL, *files = NULL;
	const char			*s = (const char *)data, *end = s + size, *p, *nl;
	const char			*text;
	size_t				 rootlen;
	struct doc			 d;
	char				 err[256], first[64];

	memset(&t, 0, sizeof(t));
	memset(&st, 0, sizeof(st));
	ops.arg = &t;
	p = memchr(s, 0x01, size);
	rootlen = p != NULL ? (size_t)(p - s) : size;
	while (p != NULL && t.n < FUZZ_TREE_FILES) {
		p++;
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			break;
		t.name[t.n] = p;
		t.namelen[t.n] = (size_t)(nl - p);
		t.data[t.n] = nl + 1;
		p = memchr(nl + 1, 0x01, (size_t)(end - nl - 1));
		t.len[t.n] = (size_t)((p != NULL ? p : end) - (nl + 1));
		t.n++;
	}
	if (openapi_load(s, rootlen, OPENAPI_AUTO, &root, err, sizeof(err)) == -1)
		return 0;
	st.bytes = rootlen;
	if (openapi_tree_load(root, &ops, &lim, &files, &st) == 0) {
		if (st.files > lim.max_files || st.bytes > lim.max_bytes + rootlen)
			abort();
		if (json_object_is_type(root, json_type_object)) {
			json_object_object_add(root, OPENAPI_FILES_KEY, files);
			files = NULL;
			(void)openapi_unresolved(root, first, sizeof(first));
			text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN);
			if (text != NULL && doc_parse_as(DOC_FORMAT_OPENAPI, "spec.json", text,
			    strlen(text), &d, NULL) == 0)
				doc_release(&d);
		}
	}
	json_object_put(files);
	json_object_put(root);
	return 0;
}
