/*
 * ao_preload.so: FRR (or any program) speaking TCP-AO (RFC 5925) through the
 * TCP-MD5 password it already has, for the TCP-AO VM tests.
 *
 *   gcc -shared -fPIC -O2 -o ao_preload.so ao_preload.c -ldl
 *   LD_PRELOAD=./ao_preload.so bgpd ...   with   neighbor X password ao:S:R:ALG:SECRET
 *
 * setsockopt(IPPROTO_TCP, TCP_MD5SIG or TCP_MD5SIG_EXT, struct tcp_md5sig)
 * whose key is "ao:SENDID:RECVID:ALG:SECRET" (ALG "sha1" for HMAC-SHA-1-96,
 * "cmac" for AES-128-CMAC-96) becomes setsockopt(IPPROTO_TCP,
 * TCP_AO_ADD_KEY, struct tcp_ao_add) for the same address (and prefix, with
 * TCP_MD5SIG_FLAG_PREFIX); deleting such a key (keylen 0 after an "ao:"
 * key) is answered with success, as the socket goes away anyway. Any other
 * call goes to the real setsockopt. Each translation is logged to stderr
 * ("ao_preload: ..."), never the secret.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define TCP_MD5SIG_ 14
#define TCP_MD5SIG_EXT_ 32
#define TCP_MD5SIG_FLAG_PREFIX_ 1
#define TCP_AO_ADD_KEY_ 38

struct md5sig { /* struct tcp_md5sig */
	struct sockaddr_storage addr;
	uint8_t flags, prefixlen;
	uint16_t keylen;
	int ifindex;
	uint8_t key[80];
};

struct ao_add { /* struct tcp_ao_add, 288 bytes */
	struct sockaddr_storage addr;
	char alg_name[64];
	int32_t ifindex;
	uint32_t set_current : 1, set_rnext : 1, reserved : 30;
	uint16_t reserved2;
	uint8_t prefix, sndid, rcvid, maclen, keyflags, keylen;
	uint8_t key[80];
} __attribute__((aligned(8)));

_Static_assert(sizeof(struct ao_add) == 288, "struct tcp_ao_add");
_Static_assert(sizeof(struct md5sig) == 216, "struct tcp_md5sig");

typedef int (*setsockopt_fn)(int, int, int, const void *, socklen_t);

static int real(int fd, int level, int name, const void *val, socklen_t len)
{
	static setsockopt_fn next;
	if (!next)
		next = (setsockopt_fn)dlsym(RTLD_NEXT, "setsockopt");
	return next(fd, level, name, val, len);
}

/* translate fills a from an "ao:S:R:ALG:SECRET" key; 0 when it is one. */
static int translate(const struct md5sig *m, struct ao_add *a)
{
	char buf[81], *p, *s, *r, *alg, *secret;
	unsigned long sid, rid;

	if (m->keylen < 3 || m->keylen > 80 || memcmp(m->key, "ao:", 3) != 0)
		return -1;
	memcpy(buf, m->key, m->keylen);
	buf[m->keylen] = 0;
	p = buf + 3;
	s = strsep(&p, ":");
	r = strsep(&p, ":");
	alg = strsep(&p, ":");
	secret = p;
	if (!s || !r || !alg || !secret || !*secret)
		return -1;
	sid = strtoul(s, NULL, 10);
	rid = strtoul(r, NULL, 10);
	memset(a, 0, sizeof(*a));
	a->addr = m->addr;
	if (a->addr.ss_family == AF_INET)
		((struct sockaddr_in *)&a->addr)->sin_port = 0;
	else
		((struct sockaddr_in6 *)&a->addr)->sin6_port = 0;
	if (!strcmp(alg, "cmac"))
		strcpy(a->alg_name, "cmac(aes128)");
	else
		strcpy(a->alg_name, "hmac(sha1)");
	if (m->flags & TCP_MD5SIG_FLAG_PREFIX_)
		a->prefix = m->prefixlen;
	else if (a->addr.ss_family == AF_INET6 &&
		 !IN6_IS_ADDR_V4MAPPED(&((struct sockaddr_in6 *)&a->addr)->sin6_addr))
		a->prefix = 128;
	else
		a->prefix = 32;
	a->sndid = sid;
	a->rcvid = rid;
	a->keylen = strlen(secret);
	memcpy(a->key, secret, a->keylen);
	memset(buf, 0, sizeof(buf));
	return 0;
}

int setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	static int had_ao;
	const struct md5sig *m = val;
	struct ao_add a;
	char host[INET6_ADDRSTRLEN] = "?";
	int rc, e;

	if (level != IPPROTO_TCP || (name != TCP_MD5SIG_ && name != TCP_MD5SIG_EXT_) || !val ||
	    len < sizeof(struct md5sig))
		return real(fd, level, name, val, len);
	if (m->addr.ss_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)&m->addr)->sin_addr, host, sizeof(host));
	else if (m->addr.ss_family == AF_INET6)
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&m->addr)->sin6_addr, host, sizeof(host));
	if (m->keylen == 0 && had_ao) {
		fprintf(stderr, "ao_preload: fd %d: delete of the key for %s ignored\n", fd, host);
		return 0;
	}
	if (translate(m, &a) != 0)
		return real(fd, level, name, val, len);
	had_ao = 1;
	rc = real(fd, IPPROTO_TCP, TCP_AO_ADD_KEY_, &a, sizeof(a));
	e = errno;
	fprintf(stderr, "ao_preload: fd %d: TCP-AO key %u/%u %s for %s/%u: %s\n", fd, a.sndid, a.rcvid, a.alg_name,
		host, a.prefix, rc == 0 ? "added" : strerror(e));
	memset(&a, 0, sizeof(a));
	errno = e;
	return rc;
}
