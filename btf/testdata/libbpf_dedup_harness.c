// libbpf_dedup_harness: runs libbpf's btf__dedup on raw BTF, the oracle for
// TestDedupMatchesLibbpf (set BTFGATE_LIBBPF_DEDUP to the built binary).
//
// Build against the libbpf pahole embeds (v1.31: libbpf f7081a6b), e.g.:
//   git clone https://github.com/libbpf/libbpf && cd libbpf/src &&
//   make BUILD_STATIC_ONLY=1 OBJDIR=/tmp/lb DESTDIR=/tmp/lb/root install
//   cc -O2 -I/tmp/lb/root/usr/include -o libbpf_dedup_harness \
//      libbpf_dedup_harness.c /tmp/lb/libbpf.a -lelf -lz
//
// usage: harness [-b base.btf] [-n copies] [-r] in.btf out.btf
//  (HARNESS_TIME=1 prints the CPU time of btf__dedup; HARNESS_DEBUG=1 libbpf's log)
//  default: dst = new empty (split) BTF; add src's own strings in table
//  order, then btf__add_btf(src) `copies` times, then btf__dedup.
//  -r: dedup the parsed input directly (libbpf also rebuilds strings).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

static int print_fn(enum libbpf_print_level l, const char *fmt, va_list ap) {
	if (getenv("HARNESS_DEBUG")) return vfprintf(stderr, fmt, ap);
	return 0;
}

int main(int argc, char **argv) {
	const char *basep = NULL; int copies = 1, raw = 0, c;
	while ((c = getopt(argc, argv, "b:n:r")) != -1) {
		if (c == 'b') basep = optarg; else if (c == 'n') copies = atoi(optarg); else if (c == 'r') raw = 1;
		else return 2;
	}
	if (argc - optind != 2) { fprintf(stderr, "usage\n"); return 2; }
	libbpf_set_print(print_fn);
	struct btf *base = NULL, *src, *dst;
	if (basep) { base = btf__parse_raw(basep); if (!base) { perror("base"); return 1; } }
	src = base ? btf__parse_raw_split(argv[optind], base) : btf__parse_raw(argv[optind]);
	if (!src) { perror("parse"); return 1; }
	if (raw) {
		dst = src;
	} else {
		dst = base ? btf__new_empty_split(base) : btf__new_empty();
		__u32 sz; const char *d = btf__raw_data(src, &sz);
		const __u32 *h = (const void *)d;
		__u32 hdr_len = h[1], str_off = h[4], str_len = h[5];
		const char *s = d + hdr_len + str_off, *e = s + str_len;
		while (s < e) { if (*s && btf__add_str(dst, s) < 0) { perror("add_str"); return 1; } s += strlen(s) + 1; }
		for (int i = 0; i < copies; i++) if (btf__add_btf(dst, src) < 0) { perror("add_btf"); return 1; }
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	if (btf__dedup(dst, NULL)) { perror("dedup"); return 1; }
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	if (getenv("HARNESS_TIME"))
		fprintf(stderr, "btf__dedup: %.3f s CPU\n", (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	__u32 sz; const void *out = btf__raw_data(dst, &sz);
	FILE *f = fopen(argv[optind + 1], "wb"); fwrite(out, 1, sz, f); fclose(f);
	return 0;
}
