/*
 * test-aws.c: SigV4 against AWS's published Signature Version 4 test suite, and the credential
 * chain (environment, bearer token, shared files, container endpoint, STS web identity, IMDSv2)
 * against a local HTTP stand-in, without network access.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <sys/types.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/util.h"
#include "http-helpers.h"
#include "net/aws.h"
#include "tap.h"

/*
 * The vectors below are AWS's "Signature Version 4 Test Suite" (aws-sig-v4-test-suite, 2015
 * edition: credentials AKIDEXAMPLE / wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY, region
 * us-east-1, service "service", 20150830T123600Z), copied verbatim:
 *  - requests (.req) and Authorization values (.authz), and the .creq/.sts files where that copy
 *    has them (get-vanilla-query-order-key, post-x-www-form-urlencoded), from
 *    github.com/bazelbuild/bazel third_party/aws-sig-v4-test-suite/<test>/<test>.{req,creq,sts,authz}
 *    (normalize-path/<test>/ and post-sts-token/post-sts-header-before/ for those groups);
 *  - the canonical requests and strings to sign of the other tests from the same suite as
 *    bundled (test name, request, canonicalString, stringToSign, outputAuth) in the test
 *    fixture of the aws4 JavaScript signer's browser test build ("aws4test" webpack bundle,
 *    module 8); every Authorization value there matches the bazel .authz files read.
 * Nothing here was computed by this code.
 */
#define AKID	"AKIDEXAMPLE"
#define SECRET	"wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
#define AMZDATE	"20150830T123600Z"
#define NOW	((time_t)1440938160)	/* 2015-08-30T12:36:00Z */
#define EMPTY	"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define STSPFX	"AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n"
#define AUTHPFX	"AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
#define HOSTDATE "host:example.amazonaws.com\nx-amz-date:20150830T123600Z\n"
#define STSTOKEN "AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHGBuFqwAeMicRXmxfpSPfIeoIYRqTflfKD8YUuwthAx7mSEI/qkPpKPi/kMcGdQrmGdeehM4IC1NtBmUpp2wUE8phUZampKsburEDy0KPkyQDYwT7WZ0wq5VSXDvp75YU9HFvlRd8Tx6q6fE8YQcHNVXAkiY9q6d+xo0rKwT38xVqr7ZD0u0iPPkUL64lIZbqBAz+scqKmlzm8FDrypNC9Yjc8fPOLn9FX9KSYvKTr4rvx3iSIlTJabIQwj2ICCR/oLxBA=="
#define BASE	"https://example.amazonaws.com"

struct vec {
	const char	*name;
	const char	*method;
	const char	*url;
	const char	*hdrs[5];
	const char	*body;
	const char	*token;
	const char	*creq;
	const char	*sts;
	const char	*authz;
};

static const struct vec vecs[] = {
	{ "get-vanilla", "GET", BASE "/", { NULL }, "", NULL,
	  "GET\n/\n\n" HOSTDATE "\nhost;x-amz-date\n" EMPTY,
	  STSPFX "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63",
	  AUTHPFX "SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31" },
	/* get-vanilla-query.req is "GET / HTTP/1.1" (no query), .sreq signs it as get-vanilla */
	{ "get-vanilla-query", "GET", BASE "/", { NULL }, "", NULL,
	  "GET\n/\n\n" HOSTDATE "\nhost;x-amz-date\n" EMPTY,
	  STSPFX "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63",
	  AUTHPFX "SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31" },
	{ "get-vanilla-empty-query-key", "GET", BASE "/?Param1=value1", { NULL }, "", NULL,
	  "GET\n/\nParam1=value1\n" HOSTDATE "\nhost;x-amz-date\n" EMPTY,
	  STSPFX "1e24db194ed7d0eec2de28d7369675a243488e08526e8c1c73571282f7c517ab",
	  AUTHPFX "SignedHeaders=host;x-amz-date, Signature=a67d582fa61cc504c4bae71f336f98b97f1ea3c7a6bfe1b6e45aec72011b9aeb" },
	{ "get-vanilla-query-order-key", "GET", BASE "/?Param1=value2&Param1=Value1", { NULL }, "", NULL,
	  "GET\n/\nParam1=Value1&Param1=value2\n" HOSTDATE "\nhost;x-amz-date\n" EMPTY,
	  STSPFX "704b4cef673542d84cdff252633f065e8daeba5f168b77116f8b1bcaf3d38f89",
	  AUTHPFX "SignedHeaders=host;x-amz-date, Signature=eedbc4e291e521cf13422ffca22be7d2eb8146eecf653089df300a15b2382bd1" },
	{ "get-vanilla-query-order-key-case", "GET", BASE "/?Param2=value2&Param1=value1", { NULL }, "", NULL,
	  "GET\n/\nParam1=value1&Param2=value2\n" HOSTDATE "\nhost;x-amz-date\n" EMPTY,
	  STSPFX "816cd5b414d056048ba4f7c5386d6e0533120fb1fcfa93762cf0fc39e2cf19e0",
	  AUTHPFX "SignedHeaders=host;x-amz-date, Signature=b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500" },
	{ "get-vanilla-query-order-value", "GET", BASE "/?Param1=value2&Param1=value1", { NULL }, "", NULL,
	  "GET\n/\nParam1=value1&Param1=value2\n" HOSTDATE "\nhost;x-amz-date\n" EMPTY,
	  STSPFX "c968629d70850097a2d8781c9bf7edcb988b04cac14cca9be4acc3595f884606",
	  AUTHPFX "SignedHeaders=host;x-amz-date, Signature=5772eed61e12b33fae39ee5e7012498b51d56abc0abb7c60486157bd471c4694" },
	{ "get-vanilla-query-unreserved", "GET",
	  BASE "/?-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz=-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
	  { NULL }, "", NULL,
	  "GET\n/\n-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz=-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz\n" HOSTDATE "\nhost;x-amz-date\n" EMPTY,
	  STSPFX "c30d4703d9f799439be92736156d47ccfb2d879ddf56f5befa6d1d6aab979177",
	  AUTHPFX "SignedHeaders=host;x-amz-date, Signature=9c3e54bfcdf0b19771a7f523ee5669cdf59bc7cc0884027167c21bb143a40197" },
	{ "get-vanilla-utf8-query", "GET", BASE "/?\xe1\x88\xb4=bar", { NULL }, "", NULL,
	  "GET\n/\n%E1%88%B4=bar\n" HOSTDATE "\nhost;x-amz-date\n" EMPTY,
	  STSPFX "eb30c5bed55734080471a834cc727ae56beb50e5f39d1bff6d0d38cb192a7073",
	  AUTHPFX "SignedHeaders=host;x-amz-date, Signature=2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04" },
	{ "get-header-key-duplicate", "GET", BASE "/",
	  { "My-Header1:value2", "My-Header1:value2", "My-Header1:value1", NULL }, "", NULL,
	  "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value2,value2,value1\nx-amz-date:20150830T123600Z\n\nhost;my-header1;x-amz-date\n" EMPTY,
	  STSPFX "dc7f04a3abfde8d472b0ab1a418b741b7c67174dad1551b4117b15527fbe966c",
	  AUTHPFX "SignedHeaders=host;my-header1;x-amz-date, Signature=c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea" },
	{ "get-header-value-order", "GET", BASE "/",
	  { "My-Header1:value4", "My-Header1:value1", "My-Header1:value3", "My-Header1:value2", NULL }, "", NULL,
	  "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value4,value1,value3,value2\nx-amz-date:20150830T123600Z\n\nhost;my-header1;x-amz-date\n" EMPTY,
	  STSPFX "31ce73cd3f3d9f66977ad3dd957dc47af14df92fcd8509f59b349e9137c58b86",
	  AUTHPFX "SignedHeaders=host;my-header1;x-amz-date, Signature=08c7e5a9acfcfeb3ab6b2185e75ce8b1deb5e634ec47601a50643f830c755c01" },
	{ "get-header-value-trim", "GET", BASE "/",
	  { "My-Header1: value1", "My-Header2: \"a   b   c\"", NULL }, "", NULL,
	  "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value1\nmy-header2:\"a b c\"\nx-amz-date:20150830T123600Z\n\nhost;my-header1;my-header2;x-amz-date\n" EMPTY,
	  STSPFX "a726db9b0df21c14f559d0a978e563112acb1b9e05476f0a6a1c7d68f28605c7",
	  AUTHPFX "SignedHeaders=host;my-header1;my-header2;x-amz-date, Signature=acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736" },
	{ "get-unreserved", "GET", BASE "/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
	  { NULL }, "", NULL,
	  "GET\n/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz\n\n" HOSTDATE "\nhost;x-amz-date\n" EMPTY,
	  STSPFX "6a968768eefaa713e2a6b16b589a8ea192661f098f37349f4e2c0082757446f9",
	  AUTHPFX "SignedHeaders=host;x-amz-date, Signature=07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f" },
	{ "get-utf8", "GET", BASE "/\xe1\x88\xb4", { NULL }, "", NULL,
	  "GET\n/%E1%88%B4\n\n" HOSTDATE "\nhost;x-amz-date\n" EMPTY,
	  STSPFX "2a0a97d02205e45ce2e994789806b19270cfbbb0921b278ccf58f5249ac42102",
	  AUTHPFX "SignedHeaders=host;x-amz-date, Signature=8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85" },
	{ "normalize-path/get-space", "GET", BASE "/example space/", { NULL }, "", NULL,
	  "GET\n/example%20space/\n\n" HOSTDATE "\nhost;x-amz-date\n" EMPTY,
	  STSPFX "63ee75631ed7234ae61b5f736dfc7754cdccfedbff4b5128a915706ee9390d86",
	  AUTHPFX "SignedHeaders=host;x-amz-date, Signature=652487583200325589f1fba4c7e578f72c47cb61beeca81406b39ddec1366741" },
	{ "normalize-path/get-relative", "GET", BASE "/example/..", { NULL }, "", NULL,
	  "GET\n/\n\n" HOSTDATE "\nhost;x-amz-date\n" EMPTY,
	  STSPFX "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63",
	  AUTHPFX "SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31" },
	{ "normalize-path/get-relative-relative", "GET", BASE "/example1/example2/../..", { NULL }, "", NULL,
	  "GET\n/\n\n" HOSTDATE "\nhost;x-amz-date\n" EMPTY,
	  STSPFX "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63",
	  AUTHPFX "SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31" },
	{ "normalize-path/get-slash", "GET", BASE "//", { NULL }, "", NULL,
	  "GET\n/\n\n" HOSTDATE "\nhost;x-amz-date\n" EMPTY,
	  STSPFX "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63",
	  AUTHPFX "SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31" },
	{ "normalize-path/get-slash-dot-slash", "GET", BASE "/./", { NULL }, "", NULL,
	  "GET\n/\n\n" HOSTDATE "\nhost;x-amz-date\n" EMPTY,
	  STSPFX "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63",
	  AUTHPFX "SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31" },
	{ "normalize-path/get-slash-pointless-dot", "GET", BASE "/./example", { NULL }, "", NULL,
	  "GET\n/example\n\n" HOSTDATE "\nhost;x-amz-date\n" EMPTY,
	  STSPFX "214d50c111a8edc4819da6a636336472c916b5240f51e9a51b5c3305180cf702",
	  AUTHPFX "SignedHeaders=host;x-amz-date, Signature=ef75d96142cf21edca26f06005da7988e4f8dc83a165a80865db7089db637ec5" },
	{ "normalize-path/get-slashes", "GET", BASE "//example//", { NULL }, "", NULL,
	  "GET\n/example/\n\n" HOSTDATE "\nhost;x-amz-date\n" EMPTY,
	  STSPFX "cb96b4ac96d501f7c5c15bc6d67b3035061cfced4af6585ad927f7e6c985c015",
	  AUTHPFX "SignedHeaders=host;x-amz-date, Signature=9a624bd73a37c9a373b5312afbebe7a714a789de108f0bdfe846570885f57e84" },
	{ "post-vanilla", "POST", BASE "/", { NULL }, "", NULL,
	  "POST\n/\n\n" HOSTDATE "\nhost;x-amz-date\n" EMPTY,
	  STSPFX "553f88c9e4d10fc9e109e2aeb65f030801b70c2f6468faca261d401ae622fc87",
	  AUTHPFX "SignedHeaders=host;x-amz-date, Signature=5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b" },
	{ "post-vanilla-query", "POST", BASE "/?Param1=value1", { NULL }, "", NULL,
	  "POST\n/\nParam1=value1\n" HOSTDATE "\nhost;x-amz-date\n" EMPTY,
	  STSPFX "9d659678c1756bb3113e2ce898845a0a79dbbc57b740555917687f1b3340fbbd",
	  AUTHPFX "SignedHeaders=host;x-amz-date, Signature=28038455d6de14eafc1f9222cf5aa6f1a96197d7deb8263271d420d138af7f11" },
	{ "post-header-key-sort", "POST", BASE "/", { "My-Header1:value1", NULL }, "", NULL,
	  "POST\n/\n\nhost:example.amazonaws.com\nmy-header1:value1\nx-amz-date:20150830T123600Z\n\nhost;my-header1;x-amz-date\n" EMPTY,
	  STSPFX "9368318c2967cf6de74404b30c65a91e8f6253e0a8659d6d5319f1a812f87d65",
	  AUTHPFX "SignedHeaders=host;my-header1;x-amz-date, Signature=c5410059b04c1ee005303aed430f6e6645f61f4dc9e1461ec8f8916fdf18852c" },
	{ "post-header-value-case", "POST", BASE "/", { "My-Header1:VALUE1", NULL }, "", NULL,
	  "POST\n/\n\nhost:example.amazonaws.com\nmy-header1:VALUE1\nx-amz-date:20150830T123600Z\n\nhost;my-header1;x-amz-date\n" EMPTY,
	  STSPFX "d51ced243e649e3de6ef63afbbdcbca03131a21a7103a1583706a64618606a93",
	  AUTHPFX "SignedHeaders=host;my-header1;x-amz-date, Signature=cdbc9802e29d2942e5e10b5bccfdd67c5f22c7c4e8ae67b53629efa58b974b7d" },
	{ "post-x-www-form-urlencoded", "POST", BASE "/",
	  { "Content-Type:application/x-www-form-urlencoded", NULL }, "Param1=value1", NULL,
	  "POST\n/\n\ncontent-type:application/x-www-form-urlencoded\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\ncontent-type;host;x-amz-date\n9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e",
	  STSPFX "42a5e5bb34198acb3e84da4f085bb7927f2bc277ca766e6d19c73c2154021281",
	  AUTHPFX "SignedHeaders=content-type;host;x-amz-date, Signature=ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a" },
	{ "post-x-www-form-urlencoded-parameters", "POST", BASE "/",
	  { "Content-Type:application/x-www-form-urlencoded; charset=utf8", NULL }, "Param1=value1", NULL,
	  "POST\n/\n\ncontent-type:application/x-www-form-urlencoded; charset=utf8\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\ncontent-type;host;x-amz-date\n9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e",
	  STSPFX "2e1cf7ed91881a30569e46552437e4156c823447bf1781b921b5d486c568dd1c",
	  AUTHPFX "SignedHeaders=content-type;host;x-amz-date, Signature=1a72ec8f64bd914b0e42e42607c7fbce7fb2c7465f63e3092b3b0d39fa77a6fe" },
	{ "post-sts-token/post-sts-header-before", "POST", BASE "/", { NULL }, "", STSTOKEN,
	  "POST\n/\n\n" HOSTDATE "x-amz-security-token:" STSTOKEN "\n\nhost;x-amz-date;x-amz-security-token\n" EMPTY,
	  STSPFX "c237e1b440d4c63c32ca95b5b99481081cb7b13c7e40434868e71567c1a882f6",
	  AUTHPFX "SignedHeaders=host;x-amz-date;x-amz-security-token, Signature=85d96828115b5dc0cfc3bd16ad9e210dd772bbebba041836c64533a82be05ead" },
};

/* The value of header name in a curl_slist ("Name: value"), or NULL. */
static const char *
slist_get(const struct curl_slist *l, const char *name)
{
	size_t	 n = strlen(name);

	for (; l != NULL; l = l->next)
		if (strncasecmp(l->data, name, n) == 0 && l->data[n] == ':')
			return l->data + n + (l->data[n + 1] == ' ' ? 2 : 1);
	return NULL;
}

static size_t
slist_len(const struct curl_slist *l)
{
	size_t	 n = 0;

	for (; l != NULL; l = l->next)
		n++;
	return n;
}

static void
test_vectors(void)
{
	struct aws_creds	 c;
	struct curl_slist	*out;
	char			*creq, *sts, *sh, err[256];
	size_t			 i;

	for (i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++) {
		const struct vec *v = &vecs[i];

		memset(&c, 0, sizeof(c));
		c.access_key_id = (char *)AKID;
		c.secret_access_key = (char *)SECRET;
		c.session_token = (char *)v->token;
		creq = aws_sigv4_canonical_request(v->method, v->url, v->hdrs, AMZDATE,
		    v->token, v->body, strlen(v->body), &sh);
		is_str(creq, v->creq, "%s: canonical request", v->name);
		sts = creq != NULL ?
		    aws_sigv4_string_to_sign(AMZDATE, "us-east-1", "service", creq) : NULL;
		is_str(sts, v->sts, "%s: string to sign", v->name);
		out = NULL;
		ok(aws_sigv4_sign(v->method, v->url, "us-east-1", "service", v->hdrs, v->body,
		    strlen(v->body), &c, NOW, &out, err, sizeof(err)) == 0,
		    "%s: signs", v->name);
		is_str(slist_get(out, "Authorization"), v->authz, "%s: Authorization", v->name);
		is_str(slist_get(out, "X-Amz-Date"), AMZDATE, "%s: X-Amz-Date", v->name);
		if (v->token != NULL)
			is_str(slist_get(out, "X-Amz-Security-Token"), v->token,
			    "%s: X-Amz-Security-Token sent", v->name);
		else
			ok(slist_get(out, "X-Amz-Security-Token") == NULL,
			    "%s: no X-Amz-Security-Token", v->name);
		ok(slist_get(out, "X-Amz-Content-Sha256") == NULL,
		    "%s: no X-Amz-Content-Sha256", v->name);
		curl_slist_free_all(out);
		free(creq);
		free(sts);
		free(sh);
	}
}

static void
test_sign_misc(void)
{
	static const char *const bedrock_hdrs[] = { "Content-Type: application/json",
	    "Accept: application/json", NULL };
	static const char *const spoof[] = { "Host: evil.example", "X-Amz-Date: 19990101T000000Z",
	    "Authorization: x", "X-Amz-Security-Token: y", NULL };
	static const char *const bad_hdr[] = { "no colon here", NULL };
	static const char *const bad_val[] = { "X-A: a\r\nInjected: 1", NULL };
	struct aws_creds	 c;
	struct curl_slist	*out = NULL;
	const char		*want;
	char			*creq, *sh = NULL, err[256];

	memset(&c, 0, sizeof(c));
	c.access_key_id = (char *)AKID;
	c.secret_access_key = (char *)SECRET;

	/* Bedrock model ids: the encoded ':' of the URL is encoded again in the canonical URI. */
	creq = aws_sigv4_canonical_request("POST", "https://bedrock-runtime.us-east-1."
	    "amazonaws.com/model/anthropic.claude-3%3A0/invoke", bedrock_hdrs, AMZDATE, NULL,
	    "{}", 2, &sh);
	want = "POST\n/model/anthropic.claude-3%253A0/invoke\n\n"
	    "accept:application/json\ncontent-type:application/json\n"
	    "host:bedrock-runtime.us-east-1.amazonaws.com\nx-amz-date:" AMZDATE "\n\n";
	ok(creq != NULL && strncmp(creq, want, strlen(want)) == 0,
	    "bedrock path double-encoded, headers sorted");
	is_str(sh, "accept;content-type;host;x-amz-date", "bedrock signed headers");
	free(creq);
	free(sh);

	/* Given Host/X-Amz-Date/Authorization/token headers do not change what is signed. */
	ok(aws_sigv4_sign("GET", BASE "/", "us-east-1", "service", spoof, NULL, 0, &c, NOW,
	    &out, err, sizeof(err)) == 0, "sign with reserved headers given");
	is_str(slist_get(out, "Authorization"), vecs[0].authz,
	    "reserved headers ignored: get-vanilla signature");
	is_int(slist_len(out), 2, "two headers appended");
	curl_slist_free_all(out);
	out = NULL;

	/* Appends to an existing list, keeping it. */
	out = curl_slist_append(NULL, "Accept: application/json");
	ok(aws_sigv4_sign("GET", BASE ":443/", "us-east-1", "service", NULL, NULL, 0, &c, NOW,
	    &out, err, sizeof(err)) == 0, "sign with a default port");
	is_str(out->data, "Accept: application/json", "existing header kept first");
	is_str(slist_get(out, "Authorization"), vecs[0].authz, "default port not in host");
	curl_slist_free_all(out);
	out = NULL;

	creq = aws_sigv4_canonical_request("GET", "http://127.0.0.1:8080/a?b=c%20d+e&a",
	    NULL, AMZDATE, NULL, NULL, 0, NULL);
	want = "GET\n/a\na=&b=c%20d%2Be\nhost:127.0.0.1:8080\n";
	ok(creq != NULL && strncmp(creq, want, strlen(want)) == 0,
	    "non-default port kept; query decoded then encoded, bare key gets '='");
	free(creq);

	/* Errors leave the list untouched and say why. */
	ok(aws_sigv4_sign("GET", "ftp://example.com/", "us-east-1", "service", NULL, NULL, 0,
	    &c, NOW, &out, err, sizeof(err)) == -1 && out == NULL, "ftp URL refused");
	ok(strstr(err, "canonical request") != NULL, "error says why: %s", err);
	ok(aws_sigv4_sign("GET", BASE "/", "us-east-1", "service", bad_hdr, NULL, 0, &c, NOW,
	    &out, err, sizeof(err)) == -1 && out == NULL, "header without ':' refused");
	ok(aws_sigv4_sign("GET", BASE "/", "us-east-1", "service", bad_val, NULL, 0, &c, NOW,
	    &out, err, sizeof(err)) == -1 && out == NULL, "CR/LF in a header value refused");
	ok(aws_sigv4_sign("GET", BASE "/", "us-east-1/x", "service", NULL, NULL, 0, &c, NOW,
	    &out, err, sizeof(err)) == -1 && out == NULL, "bad region refused");
	c.secret_access_key = NULL;
	ok(aws_sigv4_sign("GET", BASE "/", "us-east-1", "service", NULL, NULL, 0, &c, NOW,
	    &out, err, sizeof(err)) == -1 && out == NULL, "missing secret refused");
	ok(strstr(err, AKID) == NULL, "error does not name the key");

	/* Bearer token: one Authorization: Bearer header, no SigV4. */
	memset(&c, 0, sizeof(c));
	c.bearer_token = (char *)"bedrock-api-key-123";
	ok(aws_sigv4_sign("POST", BASE "/", "us-east-1", "bedrock", bedrock_hdrs, "{}", 2, &c,
	    NOW, &out, err, sizeof(err)) == 0, "bearer sign");
	is_str(slist_get(out, "Authorization"), "Bearer bedrock-api-key-123", "Bearer header");
	is_int(slist_len(out), 1, "only Authorization for a bearer token");
	curl_slist_free_all(out);
}

/* ---------------------------------------------------------------- local HTTP stand-in */

#define IMDS_TOKEN	"imds-session-token-42"
#define CONT_TOKEN_ENV	"container-auth-env-token"
#define CONT_TOKEN_FILE	"container-auth-file-token"
#define WEB_TOKEN	"web.identity.jwt"
#define CREDS_JSON(k)	"{\"Code\":\"Success\",\"AccessKeyId\":\"" k "\"," \
			"\"SecretAccessKey\":\"" k "-secret\",\"Token\":\"" k "-token\"," \
			"\"Expiration\":\"2030-01-02T03:04:05Z\"}"

static int	 srv_port;
static pid_t	 srv_pid = -1;

static void
srv_reply(int fd, int status, const char *body)
{
	char	 head[256];
	int	 n;

	n = snprintf(head, sizeof(head), "HTTP/1.1 %d X\r\nContent-Length: %zu\r\n"
	    "Connection: close\r\n\r\n", status, strlen(body));
	if (write(fd, head, (size_t)n) != n || write(fd, body, strlen(body)) == -1)
		return;
}

/* Answers one request; returns 1 on /quit. */
static int
srv_handle(int fd, int *imds_hits)
{
	char	 req[16384], v[1024], line[2048], stats[64];

	req_read(fd, req, sizeof(req));
	snprintf(line, sizeof(line), "%.*s", (int)strcspn(req, "\r"), req);
	if (strncmp(line, "PUT /latest/api/token ", 22) == 0) {
		(*imds_hits)++;
		if (req_header(req, "X-aws-ec2-metadata-token-ttl-seconds", v, sizeof(v)) &&
		    strcmp(v, "21600") == 0)
			srv_reply(fd, 200, IMDS_TOKEN);
		else
			srv_reply(fd, 400, "missing ttl");
	} else if (strncmp(line, "GET /latest/meta-data/iam/security-credentials/", 47) == 0) {
		(*imds_hits)++;
		if (!req_header(req, "X-aws-ec2-metadata-token", v, sizeof(v)) ||
		    strcmp(v, IMDS_TOKEN) != 0)
			srv_reply(fd, 401, "");
		else if (strcmp(line + 47, " HTTP/1.1") == 0)
			srv_reply(fd, 200, "ctxd-test-role\n");
		else if (strcmp(line + 47, "ctxd-test-role HTTP/1.1") == 0)
			srv_reply(fd, 200, CREDS_JSON("ASIAIMDS"));
		else
			srv_reply(fd, 404, "");
	} else if (strcmp(line, "GET /creds HTTP/1.1") == 0) {
		if (!req_header(req, "Authorization", v, sizeof(v)))
			srv_reply(fd, 401, "");
		else if (strcmp(v, CONT_TOKEN_ENV) == 0)
			srv_reply(fd, 200, CREDS_JSON("ASIACONTENV"));
		else if (strcmp(v, CONT_TOKEN_FILE) == 0)
			srv_reply(fd, 200, CREDS_JSON("ASIACONTFILE"));
		else
			srv_reply(fd, 403, "");
	} else if (strncmp(line, "GET /?Action=AssumeRoleWithWebIdentity&", 39) == 0) {
		if (strstr(line, "&Version=2011-06-15") != NULL &&
		    strstr(line, "&RoleArn=arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2Fweb-role&")
		    != NULL && strstr(line, "&RoleSessionName=ctxd-test&") != NULL &&
		    strstr(line, "&WebIdentityToken=" WEB_TOKEN " ") != NULL)
			srv_reply(fd, 200, "<AssumeRoleWithWebIdentityResponse xmlns=\"https://"
			    "sts.amazonaws.com/doc/2011-06-15/\"><AssumeRoleWithWebIdentityResult>"
			    "<Credentials><AccessKeyId>ASIAWEB</AccessKeyId><SecretAccessKey>"
			    "web/secret+key</SecretAccessKey><SessionToken>web&amp;token=="
			    "</SessionToken><Expiration>2030-01-02T03:04:05Z</Expiration>"
			    "</Credentials></AssumeRoleWithWebIdentityResult>"
			    "</AssumeRoleWithWebIdentityResponse>");
		else
			srv_reply(fd, 400, "<ErrorResponse><Error><Type>Sender</Type><Code>"
			    "InvalidIdentityToken</Code></Error></ErrorResponse>");
	} else if (strcmp(line, "GET /stats HTTP/1.1") == 0) {
		snprintf(stats, sizeof(stats), "imds=%d", *imds_hits);
		srv_reply(fd, 200, stats);
	} else if (strcmp(line, "GET /quit HTTP/1.1") == 0) {
		srv_reply(fd, 200, "bye");
		return 1;
	} else
		srv_reply(fd, 404, "");
	return 0;
}

/* Forks an accept loop on 127.0.0.1:ephemeral; the child answers until GET /quit. */
static int
srv_start(void)
{
	struct sockaddr_in	 sin;
	socklen_t		 sl = sizeof(sin);
	int			 s, fd, hits = 0, quit = 0;

	if ((s = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		return -1;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(s, (struct sockaddr *)&sin, sizeof(sin)) == -1 || listen(s, 16) == -1 ||
	    getsockname(s, (struct sockaddr *)&sin, &sl) == -1) {
		close(s);
		return -1;
	}
	srv_port = ntohs(sin.sin_port);
	if ((srv_pid = fork()) == -1) {
		close(s);
		return -1;
	}
	if (srv_pid == 0) {
		alarm(120);
		while (!quit) {
			if ((fd = accept(s, NULL, NULL)) == -1) {
				if (errno == EINTR)
					continue;
				_exit(1);
			}
			quit = srv_handle(fd, &hits);
			close(fd);
		}
		close(s);
		_exit(0);
	}
	close(s);
	return 0;
}

static size_t
get_cb(char *p, size_t sz, size_t n, void *arg)
{
	struct buf	*b = arg;

	return buf_add(b, p, sz * n) == -1 ? 0 : sz * n;
}

/* GET http://127.0.0.1:PORT/path from the stand-in; the body in out (caller frees). */
static char *
srv_get(const char *path)
{
	CURL		*h;
	struct buf	 b;
	char		 url[128];

	buf_init(&b);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d%s", srv_port, path);
	if ((h = curl_easy_init()) == NULL)
		return NULL;
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
	curl_easy_setopt(h, CURLOPT_TIMEOUT, 5L);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, get_cb);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &b);
	curl_easy_perform(h);
	curl_easy_cleanup(h);
	return buf_detach(&b);
}

static void
srv_stop(void)
{
	char	*r;
	int	 st;

	if (srv_pid <= 0)
		return;
	r = srv_get("/quit");
	free(r);
	if (waitpid(srv_pid, &st, 0) == srv_pid)
		ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "stand-in exited cleanly");
	srv_pid = -1;
}

/* ---------------------------------------------------------------- credential chain */

static const char *const aws_vars[] = {
	"AWS_BEARER_TOKEN_BEDROCK", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
	"AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_SHARED_CREDENTIALS_FILE",
	"AWS_CONFIG_FILE", "AWS_CONTAINER_CREDENTIALS_FULL_URI",
	"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_AUTHORIZATION_TOKEN",
	"AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN",
	"AWS_ROLE_SESSION_NAME", "AWS_ENDPOINT_URL_STS", "AWS_EC2_METADATA_SERVICE_ENDPOINT",
	"AWS_EC2_METADATA_DISABLED", "AWS_REGION", "AWS_DEFAULT_REGION", NULL
};

static char	 tmpdir[PATH_MAX];

#define HOMECRED "[default]\naws_access_key_id=AKIAHOME\naws_secret_access_key=homesecret\n"

/* Clears every AWS variable; instance metadata disabled unless a test turns it on. */
static void
env_reset(void)
{
	size_t	 i;

	for (i = 0; aws_vars[i] != NULL; i++)
		unsetenv(aws_vars[i]);
	setenv("AWS_EC2_METADATA_DISABLED", "true", 1);
}

static char *
tmp_file(const char *name, const char *text)
{
	char	*p = util_path_join(tmpdir, name);

	if (p == NULL || util_write_file(p, text, strlen(text), 0600) == -1) {
		free(p);
		return NULL;
	}
	return p;
}

static void
test_creds_local(void)
{
	struct aws_creds	 c;
	char			 err[1024];
	char			*cred, *cfg, *home_aws, *home_cred;

	/* Nothing configured: every source is named in the error. */
	env_reset();
	ok(aws_creds_load("us-east-1", &c, err, sizeof(err)) == -1, "no credentials: fails");
	ok(strstr(err, "bearer token: unset") && strstr(err, "environment: unset") &&
	    strstr(err, "profile default:") && strstr(err, "container: unset") &&
	    strstr(err, "web identity: unset") && strstr(err, "instance metadata: disabled"),
	    "error lists the sources tried: %s", err);
	ok(c.access_key_id == NULL && c.bearer_token == NULL, "nothing returned on failure");

	/* Bearer token first. */
	env_reset();
	setenv("AWS_BEARER_TOKEN_BEDROCK", "bedrock-key", 1);
	setenv("AWS_ACCESS_KEY_ID", "AKIAENV", 1);
	setenv("AWS_SECRET_ACCESS_KEY", "envsecret", 1);
	ok(aws_creds_load("us-east-1", &c, err, sizeof(err)) == 0, "bearer token loads");
	is_str(c.bearer_token, "bedrock-key", "bearer token value");
	ok(c.access_key_id == NULL, "bearer token: no key pair");
	is_str(c.source, "bearer token", "bearer token source");
	aws_creds_release(&c);
	ok(c.bearer_token == NULL && c.source[0] == '\0', "release empties the struct");
	aws_creds_release(&c);

	/* Environment. */
	unsetenv("AWS_BEARER_TOKEN_BEDROCK");
	ok(aws_creds_load("us-east-1", &c, err, sizeof(err)) == 0, "environment loads");
	is_str(c.access_key_id, "AKIAENV", "env access key");
	is_str(c.secret_access_key, "envsecret", "env secret");
	ok(c.session_token == NULL && c.expires == 0, "env: no token, no expiry");
	is_str(c.source, "environment", "env source");
	aws_creds_release(&c);
	setenv("AWS_SESSION_TOKEN", "envtoken", 1);
	ok(aws_creds_load(NULL, &c, err, sizeof(err)) == 0, "environment with session token");
	is_str(c.session_token, "envtoken", "env session token");
	aws_creds_release(&c);
	unsetenv("AWS_SECRET_ACCESS_KEY");
	ok(aws_creds_load(NULL, &c, err, sizeof(err)) == -1 &&
	    strstr(err, "environment: incomplete") != NULL, "half the env pair: not used");
	ok(strstr(err, "AKIAENV") == NULL && strstr(err, "envtoken") == NULL,
	    "error holds no secret");

	/* Shared credentials file with two profiles. */
	env_reset();
	cred = tmp_file("credentials", "# comment\n[default]\naws_access_key_id = AKIADEF\n"
	    "aws_secret_access_key=defsecret\r\n\n[work]\n ; another comment\n"
	    "AWS_ACCESS_KEY_ID = AKIAWORK\naws_secret_access_key = work/secret+\n"
	    "aws_session_token = worktoken\nregion = eu-west-1\n");
	cfg = tmp_file("config", "[default]\nregion = us-east-1\n[profile cfgonly]\n"
	    "aws_access_key_id = AKIACFG\naws_secret_access_key = cfgsecret\n"
	    "[bare]\naws_access_key_id = AKIABARE\naws_secret_access_key = baresecret\n"
	    "[profile half]\naws_access_key_id = AKIAHALF\n");
	ok(cred != NULL && cfg != NULL, "wrote shared files");
	setenv("AWS_SHARED_CREDENTIALS_FILE", cred, 1);
	setenv("AWS_CONFIG_FILE", cfg, 1);
	ok(aws_creds_load(NULL, &c, err, sizeof(err)) == 0, "default profile loads");
	is_str(c.access_key_id, "AKIADEF", "default profile key");
	is_str(c.secret_access_key, "defsecret", "default profile secret (CRLF trimmed)");
	ok(c.session_token == NULL, "default profile: no token");
	is_str(c.source, "profile default", "default profile source");
	aws_creds_release(&c);
	setenv("AWS_PROFILE", "work", 1);
	ok(aws_creds_load(NULL, &c, err, sizeof(err)) == 0, "AWS_PROFILE=work loads");
	is_str(c.access_key_id, "AKIAWORK", "work key (key name case-insensitive)");
	is_str(c.secret_access_key, "work/secret+", "work secret");
	is_str(c.session_token, "worktoken", "work token");
	is_str(c.source, "profile work", "work source");
	aws_creds_release(&c);
	setenv("AWS_PROFILE", "cfgonly", 1);
	ok(aws_creds_load(NULL, &c, err, sizeof(err)) == 0, "[profile cfgonly] from config");
	is_str(c.access_key_id, "AKIACFG", "config-file key");
	is_str(c.source, "profile cfgonly", "config-file source");
	aws_creds_release(&c);
	setenv("AWS_PROFILE", "bare", 1);
	ok(aws_creds_load(NULL, &c, err, sizeof(err)) == -1, "[bare] in config is not a profile");
	ok(strstr(err, "no [profile bare]") != NULL, "error names the section: %s", err);
	setenv("AWS_PROFILE", "half", 1);
	ok(aws_creds_load(NULL, &c, err, sizeof(err)) == -1 &&
	    strstr(err, "[profile half] has no") != NULL, "incomplete profile refused");
	ok(strstr(err, "AKIAHALF") == NULL, "error holds no key");
	setenv("AWS_PROFILE", "missing", 1);
	ok(aws_creds_load(NULL, &c, err, sizeof(err)) == -1 && strstr(err, "no [missing]"),
	    "missing profile: error names it");

	/* ~/.aws/credentials by default (HOME is the test's temporary folder). */
	env_reset();
	home_aws = util_path_join(tmpdir, ".aws");
	home_cred = util_path_join(tmpdir, ".aws/credentials");
	ok(home_aws != NULL && mkdir(home_aws, 0700) == 0 && home_cred != NULL &&
	    util_write_file(home_cred, HOMECRED, strlen(HOMECRED), 0600) == 0,
	    "wrote ~/.aws/credentials");
	ok(aws_creds_load(NULL, &c, err, sizeof(err)) == 0, "~/.aws/credentials loads");
	is_str(c.access_key_id, "AKIAHOME", "home credentials key");
	aws_creds_release(&c);
	/* The environment wins over the shared files. */
	setenv("AWS_ACCESS_KEY_ID", "AKIAENV", 1);
	setenv("AWS_SECRET_ACCESS_KEY", "envsecret", 1);
	ok(aws_creds_load(NULL, &c, err, sizeof(err)) == 0 &&
	    strcmp(c.source, "environment") == 0, "environment before the shared files");
	aws_creds_release(&c);
	unlink(home_cred);
	rmdir(home_aws);
	unlink(cred);
	unlink(cfg);
	free(home_aws);
	free(home_cred);
	free(cred);
	free(cfg);
}

static void
test_creds_network(void)
{
	struct aws_creds	 c;
	char			 err[1024], url[128];
	char			*tokfile, *webtok, *badtok, *stats;
	time_t			 t0;
	int			 s, dead_port;
	struct sockaddr_in	 sin;
	socklen_t		 sl = sizeof(sin);

	/* Container endpoint with the token from the environment, then from a file. */
	env_reset();
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/creds", srv_port);
	setenv("AWS_CONTAINER_CREDENTIALS_FULL_URI", url, 1);
	ok(aws_creds_load(NULL, &c, err, sizeof(err)) == -1 &&
	    strstr(err, "container: HTTP 401") != NULL, "container without token: 401: %s", err);
	setenv("AWS_CONTAINER_AUTHORIZATION_TOKEN", CONT_TOKEN_ENV, 1);
	ok(aws_creds_load(NULL, &c, err, sizeof(err)) == 0, "container loads: %s",
	    c.source[0] ? c.source : err);
	is_str(c.access_key_id, "ASIACONTENV", "container key (env Authorization)");
	is_str(c.secret_access_key, "ASIACONTENV-secret", "container secret");
	is_str(c.session_token, "ASIACONTENV-token", "container token");
	is_int(c.expires, 1893553445, "container expiration parsed");
	is_str(c.source, "container", "container source");
	aws_creds_release(&c);
	tokfile = tmp_file("container-token", CONT_TOKEN_FILE "\n");
	setenv("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", tokfile, 1);
	ok(aws_creds_load(NULL, &c, err, sizeof(err)) == 0, "container with token file");
	is_str(c.access_key_id, "ASIACONTFILE", "token file wins over the variable");
	aws_creds_release(&c);
	setenv("AWS_CONTAINER_AUTHORIZATION_TOKEN", "wrong-token", 1);
	unsetenv("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE");
	ok(aws_creds_load(NULL, &c, err, sizeof(err)) == -1 &&
	    strstr(err, "HTTP 403") != NULL && strstr(err, "wrong-token") == NULL,
	    "wrong container token: 403, token not in the error");
	setenv("AWS_CONTAINER_CREDENTIALS_FULL_URI", "http://example.com/creds", 1);
	ok(aws_creds_load(NULL, &c, err, sizeof(err)) == -1 &&
	    strstr(err, "full URI must be") != NULL, "plain-http remote full URI refused");
	setenv("AWS_CONTAINER_CREDENTIALS_FULL_URI", url, 1);
	setenv("AWS_CONTAINER_AUTHORIZATION_TOKEN", CONT_TOKEN_ENV, 1);
	setenv("AWS_ACCESS_KEY_ID", "AKIAENV", 1);
	setenv("AWS_SECRET_ACCESS_KEY", "envsecret", 1);
	ok(aws_creds_load(NULL, &c, err, sizeof(err)) == 0 &&
	    strcmp(c.source, "environment") == 0, "environment before the container");
	aws_creds_release(&c);

	/* STS AssumeRoleWithWebIdentity. */
	env_reset();
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/", srv_port);
	webtok = tmp_file("web-token", WEB_TOKEN "\n");
	badtok = tmp_file("bad-token", "not-the-token");
	setenv("AWS_WEB_IDENTITY_TOKEN_FILE", webtok, 1);
	setenv("AWS_ROLE_ARN", "arn:aws:iam::123456789012:role/web-role", 1);
	setenv("AWS_ROLE_SESSION_NAME", "ctxd-test", 1);
	setenv("AWS_ENDPOINT_URL_STS", url, 1);
	ok(aws_creds_load("eu-west-1", &c, err, sizeof(err)) == 0, "web identity loads: %s",
	    c.source[0] ? c.source : err);
	is_str(c.access_key_id, "ASIAWEB", "STS key");
	is_str(c.secret_access_key, "web/secret+key", "STS secret");
	is_str(c.session_token, "web&token==", "STS token (entity decoded)");
	is_int(c.expires, 1893553445, "STS expiration parsed");
	is_str(c.source, "web identity", "web identity source");
	aws_creds_release(&c);
	setenv("AWS_WEB_IDENTITY_TOKEN_FILE", badtok, 1);
	ok(aws_creds_load("eu-west-1", &c, err, sizeof(err)) == -1 &&
	    strstr(err, "web identity: HTTP 400; STS error InvalidIdentityToken") != NULL,
	    "STS refusal reported: %s", err);
	ok(strstr(err, "not-the-token") == NULL, "web identity token not in the error");

	/* IMDSv2. */
	env_reset();
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/", srv_port);
	setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT", url, 1);
	stats = srv_get("/stats");
	is_str(stats, "imds=0", "no metadata request so far");
	free(stats);
	ok(aws_creds_load(NULL, &c, err, sizeof(err)) == -1 &&
	    strstr(err, "instance metadata: disabled") != NULL, "AWS_EC2_METADATA_DISABLED=true");
	stats = srv_get("/stats");
	is_str(stats, "imds=0", "disabled: the endpoint was not contacted");
	free(stats);
	unsetenv("AWS_EC2_METADATA_DISABLED");
	ok(aws_creds_load(NULL, &c, err, sizeof(err)) == 0, "instance metadata loads: %s",
	    c.source[0] ? c.source : err);
	is_str(c.access_key_id, "ASIAIMDS", "IMDS key");
	is_str(c.secret_access_key, "ASIAIMDS-secret", "IMDS secret");
	is_str(c.session_token, "ASIAIMDS-token", "IMDS token");
	is_int(c.expires, 1893553445, "IMDS expiration parsed");
	is_str(c.source, "instance metadata", "IMDS source");
	aws_creds_release(&c);
	stats = srv_get("/stats");
	is_str(stats, "imds=3", "token PUT, role list, role credentials");
	free(stats);

	/* A metadata endpoint that does not answer fails fast. */
	if ((s = socket(AF_INET, SOCK_STREAM, 0)) != -1) {
		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		bind(s, (struct sockaddr *)&sin, sizeof(sin));
		getsockname(s, (struct sockaddr *)&sin, &sl);
		dead_port = ntohs(sin.sin_port);
		close(s);
		snprintf(url, sizeof(url), "http://127.0.0.1:%d", dead_port);
		setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT", url, 1);
		t0 = time(NULL);
		ok(aws_creds_load(NULL, &c, err, sizeof(err)) == -1 &&
		    strstr(err, "instance metadata:") != NULL, "dead endpoint fails: %s", err);
		ok(time(NULL) - t0 <= 3, "and fails fast");
	}
	env_reset();
	unlink(tokfile);
	unlink(webtok);
	unlink(badtok);
	free(tokfile);
	free(webtok);
	free(badtok);
}

int
main(void)
{
	char	 tmpl[] = "/tmp/test-aws.XXXXXX";

	log_init("test-aws");
	if (mkdtemp(tmpl) == NULL) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	snprintf(tmpdir, sizeof(tmpdir), "%s", tmpl);
	setenv("HOME", tmpdir, 1);
	env_reset();
	/* No proxy may catch the stand-in's loopback requests. */
	unsetenv("http_proxy");
	unsetenv("HTTP_PROXY");
	unsetenv("https_proxy");
	unsetenv("HTTPS_PROXY");
	unsetenv("ALL_PROXY");
	unsetenv("all_proxy");
	curl_global_init(CURL_GLOBAL_DEFAULT);

	test_vectors();
	test_sign_misc();
	test_creds_local();
	if (srv_start() == 0) {
		test_creds_network();
		srv_stop();
	} else
		ok(0, "local HTTP stand-in started: %s", strerror(errno));

	curl_global_cleanup();
	rmdir(tmpdir);
	return tap_done();
}
