// The cache reads malloc_usable_size (glibc, musl): Linux only; elsewhere
// tree-sitter allocates through malloc itself.

//go:build linux

package syntree

/*
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>

// tree-sitter's allocator hook (go-tree-sitter's alloc.c, linked into the
// binary).
void ts_set_allocator(void *(*)(size_t), void *(*)(size_t, size_t), void *(*)(void *, size_t), void (*)(void *));

// A cache of freed small blocks per thread, in front of malloc. A parse
// allocates and a tree's release frees some 6,000 small blocks a script
// (nodes, stack links); glibc's own per-thread cache holds 7 of a size, so
// most went through its arena's bins: a tenth of the instructions of
// fix --write on the needles. Every block is malloc's own (a free list
// holds blocks of at least its size, read with malloc_usable_size): free()
// of any of them, by go-tree-sitter or anyone, stays right, and a block
// may be freed on another thread than the one that allocated it. Each
// thread keeps at most syntree_cache_cap bytes; the rest goes back to
// free(), and a thread's cache is freed when the thread exits.
#define syntree_classes 32 // 16-byte size classes, up to 512 bytes
#define syntree_cache_cap (1 << 20)

typedef struct syntree_block { struct syntree_block *next; } syntree_block;
static __thread syntree_block *syntree_lists[syntree_classes + 1];
static __thread size_t syntree_cached;
static __thread int syntree_registered;
static pthread_key_t syntree_key_exit;
static pthread_once_t syntree_once = PTHREAD_ONCE_INIT;

static void syntree_cache_free(void *unused) {
	for (int c = 1; c <= syntree_classes; c++) {
		while (syntree_lists[c]) {
			syntree_block *b = syntree_lists[c];
			syntree_lists[c] = b->next;
			free(b);
		}
	}
	syntree_cached = 0;
}

static void syntree_key_make(void) { pthread_key_create(&syntree_key_exit, syntree_cache_free); }

static void *syntree_malloc(size_t n) {
	size_t c = n ? (n + 15) >> 4 : 1;
	if (c <= syntree_classes) {
		syntree_block *b = syntree_lists[c];
		if (b) {
			syntree_lists[c] = b->next;
			syntree_cached -= c << 4;
			return b;
		}
		n = c << 4;
	}
	void *p = malloc(n);
	if (!p) {
		fprintf(stderr, "tree-sitter failed to allocate %zu bytes", n);
		abort();
	}
	return p;
}

static void syntree_free(void *p) {
	if (!p) return;
	size_t c = malloc_usable_size(p) >> 4;
	if (c == 0 || c > syntree_classes || syntree_cached + (c << 4) > syntree_cache_cap) {
		free(p);
		return;
	}
	if (!syntree_registered) {
		// The thread's first cached block: its cache is freed at exit.
		if (pthread_once(&syntree_once, syntree_key_make) != 0 || pthread_setspecific(syntree_key_exit, (void *)1) != 0) {
			free(p);
			return;
		}
		syntree_registered = 1;
	}
	syntree_block *b = p;
	b->next = syntree_lists[c];
	syntree_lists[c] = b;
	syntree_cached += c << 4;
}

static void *syntree_calloc(size_t n, size_t size) {
	if (size && n > SIZE_MAX / size) {
		fprintf(stderr, "tree-sitter failed to allocate %zu x %zu bytes", n, size);
		abort();
	}
	void *p = syntree_malloc(n * size);
	memset(p, 0, n * size);
	return p;
}

static void *syntree_realloc(void *p, size_t n) {
	void *r = realloc(p, n);
	if (n > 0 && !r) {
		fprintf(stderr, "tree-sitter failed to reallocate %zu bytes", n);
		abort();
	}
	return r;
}

// Set before any parse: at program start, before Go's own initialisation.
__attribute__((constructor)) static void syntree_set_allocator(void) {
	ts_set_allocator(syntree_malloc, syntree_calloc, syntree_realloc, syntree_free);
}

// syntree_cache_bytes is the calling thread's cached bytes (for tests).
static size_t syntree_cache_bytes(void) { return syntree_cached; }
*/
import "C"

// threadCacheBytes is the bytes that the calling thread's block cache holds.
func threadCacheBytes() int { return int(C.syntree_cache_bytes()) }
