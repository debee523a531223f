/* test-source.c: doc comments of source files to sections (source.c via doc_parse). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "doc-helpers.h"
#include "parse/code.h"
#include "parse/doc.h"
#include "parse/parse.h"
#include "tap.h"

/* 1 when needle occurs in any title, breadcrumb, text or code of d. */
static int
leaks(const struct doc *d, const char *needle)
{
	size_t	 i, j;

	if (d->title != NULL && strstr(d->title, needle) != NULL)
		return 1;
	for (i = 0; i < d->nsecs; i++) {
		if (strstr(d->secs[i].title, needle) != NULL ||
		    strstr(d->secs[i].breadcrumb, needle) != NULL ||
		    strstr(d->secs[i].text, needle) != NULL)
			return 1;
		for (j = 0; j < d->secs[i].ncode; j++)
			if (strstr(d->secs[i].code[j].code, needle) != NULL)
				return 1;
	}
	return 0;
}

static const char rust_ws[] =
    "//! Handle WebSocket connections.\n"
    "//!\n"
    "//! # Example\n"
    "//!\n"
    "//! ```\n"
    "//! use axum::extract::ws::WebSocketUpgrade;\n"
    "//! # use axum::Router;\n"
    "//! let app = Router::new().route(\"/ws\", any(handler));\n"
    "//! ## [derive(Debug)] is escaped\n"
    "//! # let _: Router = app;\n"
    "//! ```\n"
    "//!\n"
    "//! # Read and write concurrently\n"
    "//!\n"
    "//! Use [`StreamExt::split`]:\n"
    "//!\n"
    "//! ```rust,no_run\n"
    "//! let (mut sender, mut receiver) = socket.split();\n"
    "//! ```\n"
    "//!\n"
    "//! [`StreamExt::split`]: https://docs.rs/futures\n"
    "\n"
    "use std::sync::Arc;\n"
    "\n"
    "// A plain comment: never indexed.\n"
    "const BANNER: &str = \"/// not a doc comment { \";\n"
    "const RAW: &str = r#\"{ \"quoted\" { \"#;\n"
    "const OPEN: char = '{';\n"
    "\n"
    "/// Extractor for establishing WebSocket connections.\n"
    "///\n"
    "/// # Example\n"
    "///\n"
    "/// ```no_run\n"
    "/// # async fn handler(ws: WebSocketUpgrade) {}\n"
    "/// let x = ws.on_upgrade(handle);\n"
    "/// ```\n"
    "#[derive(Debug)]\n"
    "#[cfg(all(\n"
    "    feature = \"tokio\",\n"
    "    feature = \"ws\"\n"
    "))]\n"
    "pub struct WebSocketUpgrade<F = DefaultOnFailedUpgrade> {\n"
    "    /// The chosen protocol.\n"
    "    protocol: Option<HeaderValue>,\n"
    "    config: WebSocketConfig,\n"
    "}\n"
    "\n"
    "impl<F> WebSocketUpgrade<F> {\n"
    "    /// Set the read buffer size.\n"
    "    pub fn read_buffer_size(mut self, size: usize) -> Self {\n"
    "        let s = \"}}}\";\n"
    "        self\n"
    "    }\n"
    "}\n"
    "\n"
    "impl<'a, L, M> Serve<'a, L, M>\n"
    "where\n"
    "    L: Listener,\n"
    "{\n"
    "    /// Prepares a server to handle graceful shutdown.\n"
    "    ///\n"
    "    /// # Example\n"
    "    ///\n"
    "    /// ```\n"
    "    /// axum::serve(listener, router).with_graceful_shutdown(shutdown_signal());\n"
    "    /// ```\n"
    "    #[must_use]\n"
    "    pub fn with_graceful_shutdown<F>(self, signal: F) -> WithGracefulShutdown<L, M, F>\n"
    "    where\n"
    "        F: Future<Output = ()> + Send + 'static,\n"
    "    {\n"
    "        todo!()\n"
    "    }\n"
    "}\n"
    "\n"
    "impl<T> PartialEq<T> for Utf8Bytes\n"
    "where\n"
    "    for<'a> &'a str: PartialEq<T>,\n"
    "{\n"
    "    /// Compares the text.\n"
    "    fn eq(&self, other: &T) -> bool { true }\n"
    "}\n"
    "\n"
    "/// A WebSocket message.\n"
    "pub enum Message {\n"
    "    /// A text message\n"
    "    Text(Utf8Bytes),\n"
    "    /// A close message.\n"
    "    Close(Option<CloseFrame>),\n"
    "}\n"
    "\n"
    "/// Cookie signing key.\n"
    "#[doc(inline)]\n"
    "pub use cookie::Key;\n"
    "\n"
    "pub mod close_code {\n"
    "    //! Constants for close codes.\n"
    "\n"
    "    /// Normal closure.\n"
    "    pub const NORMAL: u16 = 1000;\n"
    "}\n"
    "\n"
    "impl Router {\n"
    "    #[doc = include_str!(\"../docs/routing/route.md\")]\n"
    "    pub fn route(self) -> Self { self }\n"
    "\n"
    "    /// Create a new router.\n"
    "    pub fn new() -> Self { todo!() }\n"
    "}\n"
    "\n"
    "impl Other {\n"
    "    /// Create another one.\n"
    "    pub fn new() -> Self { todo!() }\n"
    "}\n"
    "\n"
    "/// Free function at the end, after every scope closed.\n"
    "pub async fn serve(listener: L) {}\n";

static void
test_rust(void)
{
	struct doc			 d;
	const struct doc_section	*s;

	if (parse("axum/src/extract/ws.rs", rust_ws, &d) != 0)
		return;
	is_str(d.title, "axum::extract::ws", "rust: title is the module path");

	s = crumb(&d, "axum::extract::ws");
	is_str(s_title(s), "axum::extract::ws", "module docs: title = module path");
	is_str(s_anchor(s), "axum-extract-ws", "module docs: anchor");
	is_str(s_text(s), "Handle WebSocket connections.", "module docs: intro text");
	is_int(s != NULL ? (long)s->ncode : -1L, 0, "module docs: no signature");

	s = crumb(&d, "axum::extract::ws > Example");
	is_str(s_title(s), "Example", "module # Example: title");
	is_int(s != NULL ? s->level : 0, 2, "module # Example: one level below");
	is_str(s_anchor(s), "axum-extract-ws-example", "module # Example: anchor");
	is_str(s_lang(s, 0), "rust", "fence without a language is rust");
	is_str(s_code(s, 0), "use axum::extract::ws::WebSocketUpgrade;\n"
	    "let app = Router::new().route(\"/ws\", any(handler));\n"
	    "# [derive(Debug)] is escaped",
	    "rustdoc hidden lines dropped, ## unescaped");

	s = crumb(&d, "axum::extract::ws > Read and write concurrently");
	is_str(s_text(s), "Use `StreamExt::split`:", "link reference definitions dropped");
	is_str(s_lang(s, 0), "rust", "rust,no_run fence is rust");

	s = crumb(&d, "axum::extract::ws > WebSocketUpgrade");
	is_str(s_title(s), "WebSocketUpgrade", "struct: title");
	is_str(s_anchor(s), "websocketupgrade", "struct: anchor");
	is_str(s_text(s), "Extractor for establishing WebSocket connections.",
	    "struct: intro text");
	is_str(s_code(s, 0), "pub struct WebSocketUpgrade<F = DefaultOnFailedUpgrade>",
	    "struct: signature after multi-line attributes");
	is_str(s_lang(s, 0), "rust", "signature language");
	s = crumb(&d, "axum::extract::ws > WebSocketUpgrade > Example");
	is_str(s_anchor(s), "websocketupgrade-example", "item # Example: anchor");
	is_str(s_lang(s, 0), "rust", "no_run fence is rust");
	is_str(s_code(s, 0), "let x = ws.on_upgrade(handle);", "item example code");

	s = crumb(&d, "axum::extract::ws > WebSocketUpgrade::protocol");
	is_str(s_text(s), "The chosen protocol.", "struct field: qualified");
	is_str(s_code(s, 0), "protocol: Option<HeaderValue>,", "struct field: signature");

	s = crumb(&d, "axum::extract::ws > WebSocketUpgrade::read_buffer_size");
	is_str(s_text(s), "Set the read buffer size.", "impl method: qualified by type");
	is_str(s_code(s, 0), "pub fn read_buffer_size(mut self, size: usize) -> Self",
	    "impl method: signature up to the brace");

	s = crumb(&d, "axum::extract::ws > Serve::with_graceful_shutdown");
	is_str(s_title(s), "Serve::with_graceful_shutdown", "generic impl with where");
	is_str(s_anchor(s), "serve-with_graceful_shutdown", "method: symbol slug");
	is_str(s_text(s), "Prepares a server to handle graceful shutdown.", "method text");
	is_int(s != NULL ? (long)s->ncode : -1L, 1, "signature is the intro's only code");
	is_str(s_code(s, 0), "pub fn with_graceful_shutdown<F>(self, signal: F) -> "
	    "WithGracefulShutdown<L, M, F>\nwhere\n"
	    "    F: Future<Output = ()> + Send + 'static,",
	    "three-line signature, dedented");
	s = crumb(&d, "axum::extract::ws > Serve::with_graceful_shutdown > Example");
	is_str(s_anchor(s), "serve-with_graceful_shutdown-example", "method # Example anchor");
	ok(s_code(s, 0) != NULL && strstr(s_code(s, 0), "with_graceful_shutdown(") != NULL,
	    "method example code");

	ok(crumb(&d, "axum::extract::ws > Utf8Bytes::eq") != NULL,
	    "impl Trait for Type: the type, where for<'a> ignored");
	ok(crumb(&d, "axum::extract::ws > Message") != NULL, "enum");
	is_str(s_text(crumb(&d, "axum::extract::ws > Message::Text")), "A text message",
	    "enum variant");
	ok(crumb(&d, "axum::extract::ws > Message::Close") != NULL, "enum variant 2");
	is_str(s_text(crumb(&d, "axum::extract::ws > Key")), "Cookie signing key.",
	    "pub use: the re-exported name");
	is_str(s_text(crumb(&d, "axum::extract::ws > close_code")),
	    "Constants for close codes.", "inner docs of an inline mod");
	is_str(s_text(crumb(&d, "axum::extract::ws > close_code::NORMAL")),
	    "Normal closure.", "const in an inline mod");
	is_str(s_anchor(crumb(&d, "axum::extract::ws > Router::new")), "router-new",
	    "Router::new anchor");
	is_str(s_anchor(crumb(&d, "axum::extract::ws > Other::new")), "other-new",
	    "Other::new anchor");
	ok(crumb(&d, "axum::extract::ws > Router::route") == NULL,
	    "#[doc = include_str!] is not a doc comment here");
	is_str(s_title(crumb(&d, "axum::extract::ws > serve")), "serve",
	    "scopes closed: a free function is unqualified");

	ok(!leaks(&d, "plain comment"), "plain comments never indexed");
	ok(!leaks(&d, "not a doc comment"), "string contents never indexed");
	ok(!leaks(&d, "quoted"), "raw string contents never indexed");
	ok(!leaks(&d, "derive(Debug)]\n"), "attributes are not signatures");
	ok(!leaks(&d, "todo!"), "bodies are not signatures");
	is_int(d.nsecs, 19, "rust: section count");
	doc_release(&d);
}

static void
test_rust_paths(void)
{
	static const struct { const char *path, *title; } t[] = {
		{ "axum/src/lib.rs", "axum" },
		{ "axum/src/routing/mod.rs", "axum::routing" },
		{ "axum-core/src/extract/default_body_limit.rs",
		    "axum_core::extract::default_body_limit" },
		{ "axum-extra/src/extract/cookie/mod.rs", "axum_extra::extract::cookie" },
		{ "src/main.rs", "crate" },
		{ "build.rs", "build" },
	};
	struct doc	 d;
	size_t		 i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (parse(t[i].path, "//! Crate docs.\n\n/// Item.\npub fn f() {}\n", &d) != 0)
			continue;
		is_str(d.title, t[i].title, "module path of %s", t[i].path);
		is_str(d.nsecs > 0 ? d.secs[0].title : NULL, t[i].title,
		    "module docs titled %s", t[i].path);
		doc_release(&d);
	}
}

static void
test_python(void)
{
	struct doc			 d;
	const struct doc_section	*s;
	const char			*src =
	    "#!/usr/bin/env python\n"
	    "\"\"\"Models for the app.\n"
	    "\n"
	    "    Indented second paragraph.\n"
	    "\"\"\"\n"
	    "import os\n"
	    "\n"
	    "# a plain comment\n"
	    "X = \"\"\"def fake():\n"
	    "    '''not a docstring'''\n"
	    "\"\"\"\n"
	    "\n"
	    "class BaseModel(Base,\n"
	    "                metaclass=Meta):\n"
	    "    '''A base model.\n"
	    "\n"
	    "    Example:\n"
	    "\n"
	    "    >>> m = BaseModel(x=1)\n"
	    "    >>> m.x\n"
	    "    1\n"
	    "    '''\n"
	    "\n"
	    "    def model_dump(self, *, mode: str = 'python') -> dict:\n"
	    "        \"\"\"Dump the model.\n"
	    "\n"
	    "        Args:\n"
	    "            mode: the mode.\n"
	    "        \"\"\"\n"
	    "        return {}\n"
	    "\n"
	    "    async def undocumented(self):\n"
	    "        return 1\n"
	    "\n"
	    "def helper(x):\n"
	    "    r\"\"\"Help with x.\"\"\"\n"
	    "    return x\n";

	if (parse("pkg/models.py", src, &d) != 0)
		return;
	is_str(d.title, "models.py", "python: title is the file name");
	s = crumb(&d, "models.py > pkg.models");
	is_str(s_text(s), "Models for the app.\n\nIndented second paragraph.",
	    "module docstring, PEP 257 dedent");
	s = crumb(&d, "models.py > BaseModel");
	is_str(s_text(s), "A base model.\n\nExample:", "class docstring");
	is_str(s_lang(s, 0), "python", "doctest fenced as python");
	is_str(s_code(s, 0), ">>> m = BaseModel(x=1)\n>>> m.x\n1", "doctest code");
	is_str(s_code(s, 1), "class BaseModel(Base,\n                metaclass=Meta):",
	    "class signature over two lines");
	s = crumb(&d, "models.py > BaseModel.model_dump");
	is_str(s_title(s), "BaseModel.model_dump", "method qualified by class");
	is_str(s_text(s), "Dump the model.\n\nArgs:\n\n- mode: the mode.",
	    "indented docstring lines are prose (a list), not code");
	is_str(s_code(s, 0), "def model_dump(self, *, mode: str = 'python') -> dict:",
	    "method signature");
	s = crumb(&d, "models.py > helper");
	is_str(s_text(s), "Help with x.", "function after a class: unqualified");
	ok(!leaks(&d, "fake"), "strings that look like code are not items");
	ok(!leaks(&d, "plain comment"), "python comments never indexed");
	ok(!leaks(&d, "undocumented"), "undocumented functions not indexed");
	is_int(d.nsecs, 4, "python: section count");
	doc_release(&d);
}

static void
test_jsdoc(void)
{
	struct doc			 d;
	const struct doc_section	*s;
	const char			*src =
	    "/**\n"
	    " * Utilities for widgets.\n"
	    " * @module widgets\n"
	    " */\n"
	    "import { h } from './h.js';\n"
	    "\n"
	    "/* a plain block comment */\n"
	    "const tpl = `/** not doc { */`;\n"
	    "\n"
	    "/**\n"
	    " * Renders a widget.\n"
	    " *\n"
	    " * @param {string} name - the widget name\n"
	    " * @returns {Node} the node\n"
	    " * @example\n"
	    " *   render('x');\n"
	    " *   render('y');\n"
	    " */\n"
	    "export function render(name) {\n"
	    "  return h(name);\n"
	    "}\n"
	    "\n"
	    "/** A widget. */\n"
	    "export default class Widget extends Base {\n"
	    "  /**\n"
	    "   * Draws it.\n"
	    "   */\n"
	    "  draw(ctx) {\n"
	    "  }\n"
	    "}\n"
	    "\n"
	    "/** Adds two numbers. */\n"
	    "export const add = (a, b) => a + b;\n";

	if (parse("src/widgets.js", src, &d) != 0)
		return;
	is_str(d.title, "widgets.js", "js: title is the file name");
	s = crumb(&d, "widgets.js");
	ok(s_text(s) != NULL && strncmp(s_text(s), "Utilities for widgets.", 22) == 0,
	    "file comment before import: file docs");
	s = crumb(&d, "widgets.js > render");
	is_str(s_text(s), "Renders a widget.\n\n@param {string} name - the widget name\n\n"
	    "@returns {Node} the node\n\nExample:", "JSDoc: stars stripped, tags apart");
	is_str(s_code(s, 0), "render('x');\nrender('y');", "@example becomes code");
	is_str(s_lang(s, 0), "javascript", "@example language");
	is_str(s_code(s, 1), "export function render(name)", "function signature");
	is_str(s_anchor(s), "render", "js: anchor is the slug");
	is_str(s_text(crumb(&d, "widgets.js > Widget")), "A widget.", "class");
	is_str(s_text(crumb(&d, "widgets.js > Widget.draw")), "Draws it.",
	    "method qualified with '.'");
	is_str(s_text(crumb(&d, "widgets.js > add")), "Adds two numbers.", "arrow const");
	ok(!leaks(&d, "plain block"), "block comments never indexed");
	ok(!leaks(&d, "not doc"), "template literals never indexed");
	doc_release(&d);
}

static void
test_go(void)
{
	struct doc			 d;
	const struct doc_section	*s;
	const char			*src =
	    "// Package server serves things.\n"
	    "//\n"
	    "// # Usage\n"
	    "//\n"
	    "//\tsrv := server.New()\n"
	    "package server\n"
	    "\n"
	    "// Detached comment, separated by a blank line.\n"
	    "\n"
	    "func detached() {}\n"
	    "\n"
	    "// Server is a server.\n"
	    "type Server struct {\n"
	    "\t// Addr is the address.\n"
	    "\tAddr string\n"
	    "}\n"
	    "\n"
	    "// Shutdown stops the server.\n"
	    "//go:noinline\n"
	    "func (s *Server) Shutdown(ctx context.Context) error {\n"
	    "\treturn nil\n"
	    "}\n";

	if (parse("server/server.go", src, &d) != 0)
		return;
	is_str(d.title, "server.go", "go: title is the file name");
	s = crumb(&d, "server.go > server");
	is_str(s_text(s), "Package server serves things.", "package doc");
	s = crumb(&d, "server.go > server > Usage");
	is_str(s_code(s, 0), "srv := server.New()", "go: indented block is code");
	is_str(s_lang(s, 0), "go", "go: code language");
	is_str(s_text(crumb(&d, "server.go > Server")), "Server is a server.", "type");
	s = crumb(&d, "server.go > Server.Shutdown");
	is_str(s_text(s), "Shutdown stops the server.", "method named by receiver");
	is_str(s_code(s, 0), "func (s *Server) Shutdown(ctx context.Context) error",
	    "go signature");
	ok(!leaks(&d, "Detached"), "comment not directly above an item is dropped");
	ok(!leaks(&d, "go:noinline"), "directives dropped");
	ok(!leaks(&d, "Addr is"), "struct fields are not top-level items");
	is_int(d.nsecs, 4, "go: section count");
	doc_release(&d);
}

static void
test_c(void)
{
	struct doc			 d;
	const struct doc_section	*s;
	const char			*src =
	    "/***************************************************************************\n"
	    " *                                  _   _ ____  _\n"
	    " * Copyright (C) Daniel Stenberg\n"
	    " ***************************************************************************/\n"
	    "/* <DESC>\n"
	    " * Plain HTTP POST\n"
	    " * </DESC>\n"
	    " */\n"
	    "#include <stdio.h>\n"
	    "\n"
	    "/**\n"
	    " * Options of a transfer.\n"
	    " */\n"
	    "struct options {\n"
	    "\t/** The URL to get. */\n"
	    "\tchar *url;\n"
	    "};\n"
	    "\n"
	    "/** Performs the transfer.\n"
	    " *\n"
	    " * # Example\n"
	    " *\n"
	    " * ```\n"
	    " * perform(&o);\n"
	    " * ```\n"
	    " */\n"
	    "CURL_EXTERN int perform(struct options *o,\n"
	    "    int flags);\n"
	    "\n"
	    "/// Maximum size.\n"
	    "#define MAX_SIZE 1024\n"
	    "\n"
	    "int main(void)\n"
	    "{\n"
	    "  const char *s = \"/** not a doc */\";\n"
	    "  return 0;\n"
	    "}\n";

	if (parse("docs/examples/http-post.c", src, &d) != 0)
		return;
	is_str(d.title, "http-post.c", "c: title is the file name");
	ok(!leaks(&d, "Copyright"), "banner comments are not docs");
	ok(!leaks(&d, "DESC"), "plain block comments are not docs");
	ok(!leaks(&d, "not a doc"), "c strings never indexed");
	s = crumb(&d, "http-post.c > options");
	is_str(s_text(s), "Options of a transfer.", "struct doc");
	is_str(s_code(s, 0), "struct options", "struct signature");
	is_str(s_text(crumb(&d, "http-post.c > options.url")), "The URL to get.",
	    "one-line block doc on a member");
	s = crumb(&d, "http-post.c > perform");
	is_str(s_text(s), "Performs the transfer.", "function doc, first line text kept");
	is_str(s_code(s, 0), "CURL_EXTERN int perform(struct options *o,\n    int flags);",
	    "prototype signature over two lines");
	s = crumb(&d, "http-post.c > perform > Example");
	is_str(s_anchor(s), "example", "c: heading anchor is the heading slug");
	is_str(s_code(s, 0), "perform(&o);", "fenced code in a C doc comment");
	is_str(s_lang(s, 0), "c", "fence without language: the file's");
	s = crumb(&d, "http-post.c > MAX_SIZE");
	is_str(s_text(s), "Maximum size.", "#define");
	is_str(s_code(s, 0), "#define MAX_SIZE 1024", "#define: one-line signature");
	is_int(d.nsecs, 5, "c: section count");
	doc_release(&d);
}

static void
test_ruby(void)
{
	struct doc	 d;
	const char	*src =
	    "# frozen_string_literal: true\n"
	    "\n"
	    "module Shop\n"
	    "  # A cart.\n"
	    "  class Cart\n"
	    "    # Adds an item.\n"
	    "    def add(item)\n"
	    "    end\n"
	    "\n"
	    "    # Builds a cart.\n"
	    "    def self.build\n"
	    "    end\n"
	    "  end\n"
	    "end\n";

	if (parse("lib/shop/cart.rb", src, &d) != 0)
		return;
	is_str(s_text(crumb(&d, "cart.rb > Shop::Cart")), "A cart.", "ruby class");
	is_str(s_text(crumb(&d, "cart.rb > Shop::Cart#add")), "Adds an item.",
	    "ruby instance method");
	is_str(s_text(crumb(&d, "cart.rb > Shop::Cart.build")), "Builds a cart.",
	    "ruby class method");
	ok(!leaks(&d, "frozen"), "magic comment dropped");
	doc_release(&d);
}

static void
test_empty(void)
{
	static const struct { const char *path, *src; } t[] = {
		{ "src/a.rs", "// plain\nfn main() {\n    println!(\"/// no\");\n}\n" },
		{ "src/a.c", "/* plain */\nint main(void) { return 0; }\n" },
		{ "a.py", "x = 1\n# comment\ndef f():\n    return '''no'''\n" },
		{ "a.go", "package a\n\nfunc f() {}\n" },
		{ "a.ts", "" },
		{ "a.rs", "/// doc on nothing at the end of the file\n" },
	};
	struct doc	 d;
	size_t		 i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (parse(t[i].path, t[i].src, &d) != 0)
			continue;
		is_int(d.nsecs, 0, "no doc comments: no sections (%s #%zu)", t[i].path, i);
		doc_release(&d);
	}
}

static void
test_dispatch(void)
{
	struct doc	 d;

	ok(code_is_source("a/b.rs") && code_is_source("x.py") &&
	    code_is_source("x.tsx") && code_is_source("x.h"), "source extensions");
	ok(!code_is_source("a.md") && !code_is_source("a.RS") &&
	    !code_is_source("rs") && !code_is_source("a.rst") &&
	    !code_is_source("a.txt"), "not source");
	if (parse("notes.md", "# Title\n\n/// not special in markdown\n", &d) == 0) {
		is_str(d.nsecs > 0 ? d.secs[0].text : NULL, "/// not special in markdown",
		    "markdown unchanged");
		doc_release(&d);
	}
	/* CRLF, NUL bytes and invalid UTF-8 are cleaned before parsing */
	if (doc_parse("a.rs", "/// A \xff\r\n/// b\0c\r\nfn f() {}\r\n", 26, &d) == 0) {
		is_str(d.nsecs > 0 ? d.secs[0].text : NULL, "A \xef\xbf\xbd b c", "clean input");
		doc_release(&d);
	} else
		ok(0, "doc_parse with NUL");
}

static void
test_cpp(void)
{
	struct doc			 d;
	const struct doc_section	*s;
	const char			*src =
	    "#pragma once\n"
	    "#include <string>\n"
	    "\n"
	    "namespace net {\n"
	    "\n"
	    "/// A connection pool.\n"
	    "///\n"
	    "/// Example:\n"
	    "/// ```\n"
	    "/// Pool p(4);\n"
	    "/// ```\n"
	    "class Pool : public Base {\n"
	    "public:\n"
	    "    /**\n"
	    "     * Creates a pool of n connections.\n"
	    "     * @param n the size\n"
	    "     */\n"
	    "    explicit Pool(int n);\n"
	    "\n"
	    "    /// Borrows a connection; blocks while none is free.\n"
	    "    Conn &acquire(std::chrono::milliseconds timeout = {}) const;\n"
	    "\n"
	    "    /** Number of idle connections. */\n"
	    "    size_t idle() const noexcept { return idle_; }\n"
	    "private:\n"
	    "    size_t idle_;\n"
	    "};\n"
	    "\n"
	    "/// Frees every pool.\n"
	    "void shutdown_all();\n"
	    "\n"
	    "}  // namespace net\n";

	if (parse("include/net/pool.hpp", src, &d) != 0)
		return;
	s = crumb(&d, "pool.hpp > net::Pool");
	ok(s_text(s) != NULL && strncmp(s_text(s), "A connection pool.", 18) == 0,
	    "c++: class qualified with its namespace");
	is_str(s_code(s, 0), "Pool p(4);", "c++: fenced example is code");
	is_str(s_lang(s, 0), "cpp", "c++: example language");
	is_str(s_code(s, 1), "class Pool : public Base", "c++: class signature");
	s = crumb(&d, "pool.hpp > net::Pool::Pool");
	is_str(s_text(s), "Creates a pool of n connections.\n\n@param n the size",
	    "c++: constructor, tags kept as text");
	is_str(s_code(s, 0), "explicit Pool(int n);", "c++: constructor signature");
	s = crumb(&d, "pool.hpp > net::Pool::acquire");
	is_str(s_text(s), "Borrows a connection; blocks while none is free.",
	    "c++: /// on a member");
	is_str(s_code(s, 0),
	    "Conn &acquire(std::chrono::milliseconds timeout = {}) const;",
	    "c++: a default {} is not a body");
	s = crumb(&d, "pool.hpp > net::Pool::idle");
	is_str(s_code(s, 0), "size_t idle() const noexcept", "c++: inline member");
	is_str(s_text(crumb(&d, "pool.hpp > net::shutdown_all")), "Frees every pool.",
	    "c++: free function in a namespace");
	ok(!leaks(&d, "idle_;"), "c++: undocumented members not indexed");
	doc_release(&d);
}

static void
test_java(void)
{
	struct doc			 d;
	const struct doc_section	*s;
	const char			*src =
	    "package com.example.cache;\n"
	    "\n"
	    "import java.util.Map;\n"
	    "\n"
	    "/**\n"
	    " * A bounded cache.\n"
	    " *\n"
	    " * <p>Usage:\n"
	    " * <pre>{@code\n"
	    " * Cache<String> c = new Cache<>(10);\n"
	    " * c.put(\"k\", \"v\");\n"
	    " * }</pre>\n"
	    " *\n"
	    " * @param <V> the value type\n"
	    " * @since 1.2\n"
	    " */\n"
	    "@ThreadSafe\n"
	    "public final class Cache<V> implements Store<V> {\n"
	    "    /**\n"
	    "     * Stores a value.\n"
	    "     *\n"
	    "     * @param key the key\n"
	    "     * @param value the value\n"
	    "     * @return the previous value, or {@code null}\n"
	    "     * @throws IllegalStateException when closed\n"
	    "     * @example\n"
	    "     * cache.put(\"a\", 1);\n"
	    "     */\n"
	    "    @Override\n"
	    "    public synchronized V put(String key,\n"
	    "                              V value) {\n"
	    "        return map.put(key, value);\n"
	    "    }\n"
	    "}\n";

	if (parse("src/main/java/com/example/cache/Cache.java", src, &d) != 0)
		return;
	s = crumb(&d, "Cache.java > Cache");
	ok(s_text(s) != NULL && strstr(s_text(s), "A bounded cache.") == s_text(s),
	    "java: class Javadoc");
	is_str(s_code(s, 0), "Cache<String> c = new Cache<>(10);\nc.put(\"k\", \"v\");",
	    "java: <pre>{@code} is code");
	is_str(s_lang(s, 0), "java", "java: <pre> language");
	ok(s_text(s) != NULL && strstr(s_text(s), "@param `<V>` the value type") != NULL &&
	    strstr(s_text(s), "{@code") == NULL,
	    "java: @param kept as text");
	ok(!leaks(&d, "{@code\n") && !leaks(&d, "</pre>"), "java: <pre> markup dropped");
	ok(s_code(s, 1) != NULL && strstr(s_code(s, 1), "public final class Cache<V>") !=
	    NULL, "java: class signature");
	s = crumb(&d, "Cache.java > Cache.put");
	ok(s_text(s) != NULL && strstr(s_text(s), "Stores a value.") == s_text(s) &&
	    strstr(s_text(s), "@return the previous value") != NULL &&
	    strstr(s_text(s), "@throws IllegalStateException") != NULL &&
	    strstr(s_text(s), "or `null`") != NULL,
	    "java: method Javadoc with its tags");
	is_str(s_code(s, 0), "cache.put(\"a\", 1);", "java: @example is code");
	is_str(s_code(s, 1), "public synchronized V put(String key,\n"
	    "                          V value)", "java: method signature, annotations left out");
	doc_release(&d);
}

static void
test_ts(void)
{
	struct doc			 d;
	const struct doc_section	*s;
	const char			*src =
	    "/** Options of a client. */\n"
	    "export interface ClientOptions {\n"
	    "  /** Base URL of the API. */\n"
	    "  baseUrl: string;\n"
	    "}\n"
	    "\n"
	    "/**\n"
	    " * An HTTP client.\n"
	    " * @example\n"
	    " * ```ts\n"
	    " * const c = new Client({ baseUrl: '/' });\n"
	    " * ```\n"
	    " */\n"
	    "export class Client {\n"
	    "  /**\n"
	    "   * Sends a GET request.\n"
	    "   * @param path - the path\n"
	    "   * @returns the body\n"
	    "   */\n"
	    "  async get<T>(path: string): Promise<T> {\n"
	    "    return fetch(path) as T;\n"
	    "  }\n"
	    "\n"
	    "  /** Closes the client. */\n"
	    "  static close = (c: Client): void => {};\n"
	    "}\n"
	    "\n"
	    "/**\n"
	    " * Default retry count.\n"
	    " */\n"
	    "export const RETRIES: number = 3;\n"
	    "\n"
	    "/** Joins paths. */\n"
	    "export const join = (...parts: string[]): string =>\n"
	    "  parts.join('/');\n";

	if (parse("src/client.ts", src, &d) != 0)
		return;
	is_str(s_text(crumb(&d, "client.ts > ClientOptions")), "Options of a client.",
	    "ts: interface");
	is_str(s_text(crumb(&d, "client.ts > ClientOptions.baseUrl")),
	    "Base URL of the API.", "ts: interface member");
	s = crumb(&d, "client.ts > Client");
	is_str(s_code(s, 0), "const c = new Client({ baseUrl: '/' });",
	    "ts: fenced @example is code");
	is_str(s_lang(s, 0), "ts", "ts: fence language kept");
	s = crumb(&d, "client.ts > Client.get");
	is_str(s_text(s), "Sends a GET request.\n\n@param path - the path\n\n"
	    "@returns the body", "ts: method with tags");
	is_str(s_code(s, 0), "async get<T>(path: string): Promise<T>", "ts: method sig");
	is_str(s_lang(s, 0), "typescript", "ts: signature language");
	is_str(s_text(crumb(&d, "client.ts > Client.close")), "Closes the client.",
	    "ts: static arrow property");
	s = crumb(&d, "client.ts > RETRIES");
	is_str(s_code(s, 0), "export const RETRIES: number = 3;", "ts: exported const");
	s = crumb(&d, "client.ts > join");
	is_str(s_text(s), "Joins paths.", "ts: exported arrow function");
	doc_release(&d);
}

static void
test_python_examples(void)
{
	struct doc			 d;
	const struct doc_section	*s;
	const char			*src =
	    "\"\"\"Tools for slugs.\n"
	    "\n"
	    "Example::\n"
	    "\n"
	    "    from slugs import slugify\n"
	    "    slugify('A b')\n"
	    "\n"
	    "That is all.\n"
	    "\"\"\"\n"
	    "\n"
	    "import re\n"
	    "\n"
	    "\n"
	    "class Slugger:\n"
	    "    \"\"\"Makes slugs.\n"
	    "\n"
	    "    .. code-block:: python\n"
	    "\n"
	    "        s = Slugger(sep='-')\n"
	    "        s('x y')\n"
	    "\n"
	    "    Attributes:\n"
	    "        sep: the separator.\n"
	    "    \"\"\"\n"
	    "\n"
	    "    def __call__(self, text: str,\n"
	    "                 limit: int = 0) -> str:\n"
	    "        \"\"\"Slugifies text.\n"
	    "\n"
	    "        Args:\n"
	    "            text: the text.\n"
	    "            limit: at most this many characters.\n"
	    "\n"
	    "        Returns:\n"
	    "            The slug.\n"
	    "\n"
	    "        >>> Slugger()('A B')\n"
	    "        'a-b'\n"
	    "        \"\"\"\n"
	    "        return text\n";

	if (parse("slugs/core.py", src, &d) != 0)
		return;
	s = crumb(&d, "core.py > slugs.core");
	ok(s_text(s) != NULL && strstr(s_text(s), "Tools for slugs.") == s_text(s) &&
	    strstr(s_text(s), "That is all.") != NULL, "py: module docstring");
	is_str(s_code(s, 0), "from slugs import slugify\nslugify('A b')",
	    "py: reST :: block is code");
	s = crumb(&d, "core.py > Slugger");
	is_str(s_code(s, 0), "s = Slugger(sep='-')\ns('x y')", "py: code-block is code");
	is_str(s_lang(s, 0), "python", "py: code-block language");
	ok(!leaks(&d, ".. code-block"), "py: the directive line is not text");
	ok(s_text(s) != NULL && strstr(s_text(s), "sep: the separator.") != NULL,
	    "py: Attributes: kept as text");
	s = crumb(&d, "core.py > Slugger.__call__");
	ok(s_text(s) != NULL && strstr(s_text(s), "Args:") != NULL &&
	    strstr(s_text(s), "text: the text.") != NULL &&
	    strstr(s_text(s), "The slug.") != NULL, "py: Google-style sections as text");
	is_str(s_code(s, 0), ">>> Slugger()('A B')\n'a-b'", "py: doctest is code");
	is_str(s_code(s, 1), "def __call__(self, text: str,\n             limit: int = 0) "
	    "-> str:", "py: method signature over two lines");
	doc_release(&d);
}

static void
test_go_example(void)
{
	struct doc			 d;
	const struct doc_section	*s;
	const char			*src =
	    "package cache\n"
	    "\n"
	    "// Get returns the value of key.\n"
	    "//\n"
	    "// For example:\n"
	    "//\n"
	    "//\tv, ok := c.Get(\"k\")\n"
	    "//\tif !ok {\n"
	    "//\t\treturn\n"
	    "//\t}\n"
	    "//\n"
	    "// It never blocks.\n"
	    "func (c *Cache[K, V]) Get(key K) (V, bool) {\n"
	    "\treturn c.m[key]\n"
	    "}\n"
	    "\n"
	    "// MaxSize is the default size.\n"
	    "const MaxSize = 128\n"
	    "\n"
	    "// Put stores a value, for example:\n"
	    "//\tc.Put(\"k\", v)\n"
	    "// and then:\n"
	    "//   - it is kept\n"
	    "//   - it is evicted last\n"
	    "func Put(k string, v any) {}\n";

	if (parse("cache/cache.go", src, &d) != 0)
		return;
	s = crumb(&d, "cache.go > Cache.Get");
	is_str(s_text(s), "Get returns the value of key.\n\nFor example:\n\nIt never blocks.",
	    "go: func doc text");
	is_str(s_code(s, 0), "v, ok := c.Get(\"k\")\nif !ok {\n    return\n}",
	    "go: indented example is code");
	is_str(s_lang(s, 0), "go", "go: example language");
	is_str(s_code(s, 1), "func (c *Cache[K, V]) Get(key K) (V, bool)",
	    "go: generic receiver signature");
	s = crumb(&d, "cache.go > MaxSize");
	is_str(s_code(s, 0), "const MaxSize = 128", "go: const");
	s = crumb(&d, "cache.go > Put");
	is_str(s_code(s, 0), "c.Put(\"k\", v)",
	    "go: an indented line right after text is code (Go's rule, not Markdown's)");
	ok(s_text(s) != NULL && strstr(s_text(s), "it is kept") != NULL &&
	    strstr(s_text(s), "c.Put") == NULL, "go: an indented list stays text");
	doc_release(&d);
}

/* parse, with the overview of a file with little documentation asked for. */
static int
parse_overview(const char *path, const char *src, struct doc *d)
{
	int	 added = -1;

	if (code_parse_overview(path, src, strlen(src), d, NULL, &added) == -1) {
		ok(0, "%s: code_parse_overview", path);
		return -1;
	}
	return added;
}

static void
test_overview(void)
{
	struct doc			 d;
	const struct doc_section	*s;
	struct buf			 b;
	size_t				 i;
	const char			*want;
	const char			*c_src =
	    "#include <stdlib.h>\n"
	    "\n"
	    "struct ring {\n"
	    "\tchar\t*p;\n"
	    "\tsize_t\t n, head;\n"
	    "};\n"
	    "\n"
	    "static int\n"
	    "ring_grow(struct ring *r, size_t want)\n"
	    "{\n"
	    "\tchar *q = realloc(r->p, want);\n"
	    "\n"
	    "\tif (q == NULL)\n"
	    "\t\treturn -1;\n"
	    "\tr->p = q;\n"
	    "\treturn 0;\n"
	    "}\n"
	    "\n"
	    "int\n"
	    "ring_push(struct ring *r, char c)\n"
	    "{\n"
	    "\tif (r->head == r->n && ring_grow(r, r->n * 2 + 16) == -1)\n"
	    "\t\treturn -1;\n"
	    "\tr->p[r->head++] = c;\n"
	    "\treturn 0;\n"
	    "}\n";

	is_int(parse_overview("lib/ring.c", c_src, &d), 1, "c: undocumented file: overview");
	s = sec(&d, "lib/ring.c \xe2\x80\x94 overview");
	ok(s != NULL && *s_text(s) == '\0', "overview: titled by the path, no prose");
	is_str(s_code(s, 0), "struct ring\nstatic int\nring_grow(struct ring *r, size_t "
	    "want)\nint\nring_push(struct ring *r, char c)", "c: main signatures, no bodies");
	is_str(s_lang(s, 0), "c", "overview: the file's language");
	is_str(s_anchor(s), "overview", "overview anchor");
	doc_release(&d);
	if (parse("lib/ring.c", c_src, &d) == 0) {
		is_int(d.nsecs, 0, "no overview unless asked (no LLM)");
		doc_release(&d);
	}

	buf_init(&b);
	buf_adds(&b, "\"\"\"Shapes.\"\"\"\n\n\nclass Shape:\n    def area(self) -> float:\n"
	    "        return 0.0\n\n");
	for (i = 0; i < 8; i++)
		buf_printf(&b, "def f%zu(x: int,\n       y: int = 0) -> int:\n"
		    "    def inner():\n        pass\n    return x + y\n\n", i);
	is_int(parse_overview("shapes.py", b.p, &d), 1,
	    "python: one docstring for 40 lines: overview");
	s = sec(&d, "shapes.py \xe2\x80\x94 overview");
	want = "class Shape:\n    def area(self) -> float:\ndef f0(x: int,\n       y: int = 0) "
	    "-> int:\n";
	ok(s_code(s, 0) != NULL && strncmp(s_code(s, 0), want, strlen(want)) == 0,
	    "python: classes, methods (indented), functions; signatures whole");
	ok(!leaks(&d, "inner") && !leaks(&d, "return x"), "python: no nested defs, no bodies");
	doc_release(&d);
	buf_reset(&b);

	buf_adds(&b, "package kv\n\nimport \"sync\"\n\ntype Store struct {\n\tmu sync.Mutex\n"
	    "}\n\n");
	for (i = 0; i < 4; i++)
		buf_printf(&b, "func (s *Store) Get%zu(k string) string {\n\ts.mu.Lock()\n"
		    "\tdefer s.mu.Unlock()\n\treturn k\n}\n\n", i);
	is_int(parse_overview("kv/store.go", b.p, &d), 1, "go: overview");
	s = sec(&d, "kv/store.go \xe2\x80\x94 overview");
	ok(s_code(s, 0) != NULL && strncmp(s_code(s, 0), "type Store struct\nfunc (s "
	    "*Store) Get0(k string) string\n", 55) == 0, "go: types and funcs");
	doc_release(&d);
	buf_reset(&b);

	buf_adds(&b, "import { x } from './x';\n\n@Component({ a: 1 })\nexport class Box {\n"
	    "  private n = 0;\n\n  get(): number {\n    if (this.n) {\n      return x(1);\n"
	    "    }\n    return 0;\n  }\n}\n\nexport const make = (n: number): Box => {\n"
	    "  return new Box();\n};\n");
	for (i = 0; i < 4; i++)
		buf_printf(&b, "function helper%zu(a) {\n  console.log(a);\n}\n", i);
	is_int(parse_overview("src/box.ts", b.p, &d), 1, "ts: overview");
	s = sec(&d, "src/box.ts \xe2\x80\x94 overview");
	is_str(s_code(s, 0), "export class Box\n    get(): number\nexport const make = (n: "
	    "number): Box =>\nfunction helper0(a)\nfunction helper1(a)\nfunction helper2(a)\n"
	    "function helper3(a)", "ts: class (decorated), method, arrow const, functions");
	ok(!leaks(&d, "console.log") && !leaks(&d, "@Component"), "ts: no bodies, no decorators");
	doc_release(&d);
	buf_reset(&b);

	/* documented files and short ones get none */
	for (i = 0; i < 30; i++)
		buf_printf(&b, "/// Adds %zu.\npub fn add%zu(a: u32) -> u32 {\n    a + %zu\n}\n",
		    i, i, i);
	is_int(parse_overview("src/add.rs", b.p, &d), 0, "rust: documented file: none");
	ok(sec(&d, "src/add.rs \xe2\x80\x94 overview") == NULL, "no overview section");
	doc_release(&d);
	is_int(parse_overview("tiny.c", "int f(void)\n{\n\treturn 1;\n}\n", &d), 0,
	    "a short file: none");
	doc_release(&d);
	buf_release(&b);
}

static void
test_ts_members(void)
{
	struct doc			 d;
	const struct doc_section	*s;
	const char			*src =
	    "/** Module-level doc. */\n"
	    "import x from 'y';\n"
	    "\n"
	    "/** Default handler. */\n"
	    "export default async function handler(req: Request): Promise<Response> {\n"
	    "  return new Response();\n"
	    "}\n"
	    "\n"
	    "/** A generator. */\n"
	    "export function* ids(): Generator<number> {}\n"
	    "\n"
	    "/** Store of values. */\n"
	    "export interface Store<V> {\n"
	    "  /** Gets a value. */\n"
	    "  get(key: string): V | undefined;\n"
	    "  /** Sets a value. */\n"
	    "  set(key: string, v: V): this;\n"
	    "}\n"
	    "\n"
	    "/** Kinds. */\n"
	    "export enum Kind { A, B }\n"
	    "\n"
	    "/** Alias. */\n"
	    "export type Id = string | number;\n"
	    "\n"
	    "/** Legacy. */\n"
	    "exports.legacy = function (a, b) { return a; };\n"
	    "\n"
	    "/**\n"
	    " * Widget class.\n"
	    " */\n"
	    "export abstract class Widget<T extends object = {}> extends Base<T> implements I {\n"
	    "  /** The size. */\n"
	    "  readonly size: number = 0;\n"
	    "  /** Builds it. */\n"
	    "  constructor(private readonly opts: Options = {}) { super(); }\n"
	    "  /** Renders. */\n"
	    "  protected abstract render(): void;\n"
	    "  /** Static factory. */\n"
	    "  static create<T>(o?: Partial<T>): Widget<T> { return null!; }\n"
	    "  /** Getter. */\n"
	    "  get name(): string { return ''; }\n"
	    "}\n";

	if (parse("src/t.ts", src, &d) != 0)
		return;
	is_str(s_code(crumb(&d, "t.ts > handler"), 0), "export default async function "
	    "handler(req: Request): Promise<Response>", "ts: default export");
	is_str(s_code(crumb(&d, "t.ts > Store.get"), 0), "get(key: string): V | undefined;",
	    "ts: interface method");
	is_str(s_code(crumb(&d, "t.ts > Kind"), 0), "export enum Kind", "ts: enum");
	is_str(s_code(crumb(&d, "t.ts > Id"), 0), "export type Id = string | number;",
	    "ts: type alias");
	is_str(s_text(crumb(&d, "t.ts > legacy")), "Legacy.", "js: exports.name = function");
	s = crumb(&d, "t.ts > Widget");
	is_str(s_code(s, 0), "export abstract class Widget<T extends object = {}> extends "
	    "Base<T> implements I", "ts: a type parameter's default {} is not the body");
	is_str(s_code(crumb(&d, "t.ts > Widget.constructor"), 0), "constructor(private "
	    "readonly opts: Options = {})", "ts: members of a generic class qualified");
	is_str(s_text(crumb(&d, "t.ts > Widget.render")), "Renders.", "ts: abstract method");
	is_str(s_code(crumb(&d, "t.ts > Widget.create"), 0), "static create<T>(o?: "
	    "Partial<T>): Widget<T>", "ts: static generic method");
	is_str(s_code(crumb(&d, "t.ts > Widget.name"), 0), "get name(): string", "ts: getter");
	doc_release(&d);
}

static void
test_templates_generics(void)
{
	struct doc			 d;
	const struct doc_section	*s;
	const char			*cpp =
	    "#pragma once\n"
	    "namespace util {\n"
	    "/// A growable vector.\n"
	    "template <typename T, typename Alloc = std::allocator<T>>\n"
	    "class Vec {\n"
	    "public:\n"
	    "    /// Appends x.\n"
	    "    void push_back(const T &x);\n"
	    "    /// Compares.\n"
	    "    bool operator<(const Vec &o) const { return size_ < o.size_; }\n"
	    "    /// Size.\n"
	    "    [[nodiscard]] size_t size() const noexcept { return size_; }\n"
	    "private:\n"
	    "    size_t size_;\n"
	    "};\n"
	    "\n"
	    "/// Swaps two vectors.\n"
	    "template <typename T>\n"
	    "void swap(Vec<T> &a, Vec<T> &b) noexcept;\n"
	    "}  // namespace util\n";
	const char			*java =
	    "package a;\n"
	    "\n"
	    "/** Utilities. */\n"
	    "public final class Util {\n"
	    "    private Util() {}\n"
	    "\n"
	    "    /**\n"
	    "     * Largest element.\n"
	    "     * @param <T> element type\n"
	    "     * @param list the list\n"
	    "     * @return the largest\n"
	    "     */\n"
	    "    public static <T extends Comparable<? super T>> T max(List<? extends T> list) {\n"
	    "        return null;\n"
	    "    }\n"
	    "\n"
	    "    /** Inner builder. */\n"
	    "    public static class Builder {\n"
	    "        /** Builds. */\n"
	    "        public Util build() { return new Util(); }\n"
	    "    }\n"
	    "\n"
	    "    /** Colors. */\n"
	    "    public enum Color {\n"
	    "        /** Red. */\n"
	    "        RED(\"r\"),\n"
	    "        /** Green. */\n"
	    "        GREEN(\"g\");\n"
	    "\n"
	    "        Color(String s) {}\n"
	    "    }\n"
	    "}\n"
	    "\n"
	    "/** Something that greets. */\n"
	    "interface Greeter {\n"
	    "    /** Greets. */\n"
	    "    default String greet(String name) { return \"hi \" + name; }\n"
	    "}\n";

	if (parse("include/util/v.hpp", cpp, &d) != 0)
		return;
	s = crumb(&d, "v.hpp > util::Vec");
	is_str(s_code(s, 0), "template <typename T, typename Alloc = std::allocator<T>>\n"
	    "class Vec", "c++: class template named by the class, not a parameter");
	ok(crumb(&d, "v.hpp > util::Vec::push_back") != NULL,
	    "c++: members of a class template qualified");
	is_str(s_code(crumb(&d, "v.hpp > util::Vec::operator<"), 0),
	    "bool operator<(const Vec &o) const", "c++: an operator named");
	is_str(s_code(crumb(&d, "v.hpp > util::Vec::size"), 0),
	    "[[nodiscard]] size_t size() const noexcept",
	    "c++: an attribute on the item's line");
	is_str(s_text(crumb(&d, "v.hpp > util::swap")), "Swaps two vectors.",
	    "c++: function template");
	doc_release(&d);

	if (parse("src/main/java/a/Util.java", java, &d) != 0)
		return;
	s = crumb(&d, "Util.java > Util.max");
	is_str(s_code(s, 0), "public static <T extends Comparable<? super T>> T max(List<? "
	    "extends T> list)", "java: generic method");
	is_str(s_text(crumb(&d, "Util.java > Util.Builder.build")), "Builds.",
	    "java: nested class member");
	is_str(s_code(crumb(&d, "Util.java > Util.Color.RED"), 0), "RED(\"r\"),",
	    "java: enum constant");
	is_str(s_code(crumb(&d, "Util.java > Greeter.greet"), 0),
	    "default String greet(String name)", "java: interface default method");
	doc_release(&d);
}

int
main(void)
{
	test_rust();
	test_rust_paths();
	test_python();
	test_jsdoc();
	test_go();
	test_c();
	test_ruby();
	test_empty();
	test_dispatch();
	test_cpp();
	test_java();
	test_ts();
	test_python_examples();
	test_go_example();
	test_overview();
	test_ts_members();
	test_templates_generics();
	return tap_done();
}
