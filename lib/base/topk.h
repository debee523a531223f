/*
 * topk.h: a bounded "best k" selection, generated per element type so the hot loops of
 * lib/search/lexindex.c (BM25 scores) and lib/search/vector.c (int8 scan) keep a direct comparison
 * instead of a callback.
 *
 * TOPK_DEFINE(name, type, worse) defines
 *	static void name_offer(type *h, size_t *n, size_t k, const type *e)
 * which keeps in h[0..*n) (at most k elements, a heap with the worst on top) the best k of
 * all elements offered so far. worse(a, b) is an expression over two const type pointers,
 * true when a ranks below b; it must be a strict order (break ties, e.g. by id) for the
 * selection to be deterministic. The caller sorts h afterwards if it needs an order.
 */
#ifndef TOPK_H
#define TOPK_H

#define TOPK_DEFINE(name, type, worse)						\
static inline void								\
name##_down(type *h, size_t n, size_t i)					\
{										\
	type	 tmp;								\
	size_t	 l, m;								\
										\
	for (;;) {								\
		l = 2 * i + 1;							\
		m = i;								\
		if (l < n && worse(&h[l], &h[m]))				\
			m = l;							\
		if (l + 1 < n && worse(&h[l + 1], &h[m]))			\
			m = l + 1;						\
		if (m == i)							\
			return;							\
		tmp = h[i];							\
		h[i] = h[m];							\
		h[m] = tmp;							\
		i = m;								\
	}									\
}										\
										\
static inline void								\
name##_offer(type *h, size_t *n, size_t k, const type *e)			\
{										\
	type	 tmp;								\
	size_t	 i, p;								\
										\
	if (*n < k) {								\
		i = (*n)++;							\
		h[i] = *e;							\
		while (i > 0) {							\
			p = (i - 1) / 2;					\
			if (!worse(&h[i], &h[p]))				\
				return;						\
			tmp = h[i];						\
			h[i] = h[p];						\
			h[p] = tmp;						\
			i = p;							\
		}							\
	} else if (k > 0 && worse(&h[0], e)) {					\
		h[0] = *e;							\
		name##_down(h, *n, 0);						\
	}									\
}

#endif
